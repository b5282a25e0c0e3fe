/**
 * Personal data as synthetic PII corpora make it (presidio-research's are made with Faker):
 * card numbers of every issuer, e-mail addresses and IBANs of every country from
 * @faker-js/faker (MIT, seeded), and each country's example mobile number from
 * libphonenumber-js (MIT; its metadata is Google's libphonenumber, Apache-2.0) in the forms
 * people and systems write: E.164, international, national, and a `tel:` URI.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { en, Faker } from "@faker-js/faker";
import EXAMPLES from "libphonenumber-js/examples.mobile.json";
import { type CountryCode, parsePhoneNumberWithError } from "libphonenumber-js/max";
import type { Corpus, Sample } from "./corpus.ts";

const require = createRequire(import.meta.url);

function versionOf(name: string): string {
  return (
    JSON.parse(readFileSync(require.resolve(`${name}/package.json`), "utf8")) as {
      version: string;
    }
  ).version;
}

/** Where a value stands in a tool's answer: alone, or in a sentence of a ticket or a log. */
const SETTINGS: readonly ((s: string) => string)[] = [
  (s) => s,
  (s) => `Customer wrote from ${s} about the refund.`,
  (s) => `[billing] updated record: ${s}; status=ok`,
];

function set(values: readonly [string, string][]): Sample[] {
  return values.map(([what, value], i) => ({
    text: SETTINGS[i % SETTINGS.length]?.(value) ?? value,
    positive: true,
    what,
  }));
}

export function personalData(): Corpus[] {
  const faker = new Faker({ locale: [en] });
  faker.seed(63);
  const fakerSource = (path: string) => ({
    package: "@faker-js/faker",
    version: versionOf("@faker-js/faker"),
    path,
    licence: "MIT",
  });
  const issuers = Object.keys(faker.definitions.finance?.credit_card ?? {});
  const cards: [string, string][] = issuers.flatMap((issuer) =>
    Array.from(
      { length: 60 },
      () => [issuer, faker.finance.creditCardNumber(issuer)] as [string, string],
    ),
  );
  const emails: [string, string][] = Array.from({ length: 300 }, (_, i) => {
    const kind = ["email", "special", "example"][i % 3] ?? "email";
    const value =
      kind === "special"
        ? faker.internet.email({ allowSpecialCharacters: true })
        : kind === "example"
          ? faker.internet.exampleEmail()
          : faker.internet.email();
    return [kind, value];
  });
  const ibans: [string, string][] = Array.from({ length: 300 }, (_, i) => {
    const formatted = i % 2 === 1;
    const value = faker.finance.iban({ formatted });
    return [`${value.slice(0, 2)} ${formatted ? "print" : "electronic"}`, value];
  });
  const phones: [string, string][] = Object.entries(EXAMPLES as Record<string, string>).flatMap(
    ([country, national]) => {
      const number = parsePhoneNumberWithError(national, country as CountryCode);
      return [
        ["E.164", number.number],
        ["international", number.formatInternational()],
        ["national", number.formatNational()],
        ["tel: URI", number.getURI()],
      ] as [string, string][];
    },
  );
  return [
    {
      name: "faker-cards",
      detector: "payment_card",
      description:
        "Card numbers (Luhn-valid) of each issuer Faker knows, as Faker prints them (unbroken or grouped).",
      source: fakerSource("finance.creditCardNumber"),
      samples: set(cards),
    },
    {
      name: "faker-emails",
      detector: "email",
      description:
        "E-mail addresses: ordinary, with the special characters RFC 5322 allows, and at example domains.",
      source: fakerSource("internet.email, internet.exampleEmail"),
      samples: set(emails),
    },
    {
      name: "faker-ibans",
      detector: "iban",
      description: "IBANs of every country Faker knows, in their electronic and print forms.",
      source: fakerSource("finance.iban"),
      samples: set(ibans),
    },
    {
      name: "libphonenumber-examples",
      detector: "phone",
      description:
        "The example mobile number of each of 245 countries and territories, as E.164, international and national formats and a tel: URI (RFC 3966).",
      source: {
        package: "libphonenumber-js",
        version: versionOf("libphonenumber-js"),
        path: "examples.mobile.json, formatted by libphonenumber-js/max",
        licence: "MIT (metadata from libphonenumber, Apache-2.0)",
      },
      samples: set(phones),
    },
  ];
}
