/**
 * The secret formats the `secrets` result rule finds, as data: one entry per provider token,
 * key or credential-bearing form.
 *
 * Source: the rule ids and the token shapes follow gitleaks' default rule set
 * (github.com/gitleaks/gitleaks, `config/gitleaks.toml`, MIT License), which is maintained
 * against the providers' published token formats; each entry here keeps gitleaks' id so a
 * finding can be looked up there. The patterns are written for JavaScript's RegExp (gitleaks'
 * are Go RE2 with keyword prefilters), and only formats with a distinctive prefix or structure
 * are kept, so an answer is not redacted for holding a random-looking identifier. secretlint's
 * recommended preset was not taken: its rules are Node modules run by its own engine, not data
 * a Worker can apply to a string.
 */

/** One secret format. */
export interface SecretRule {
  /** gitleaks' rule id. */
  id: string;
  /** What the secret is, in words. */
  title: string;
  /** The pattern, matched globally against each string of a result. */
  pattern: RegExp;
}

export const SECRET_RULES: readonly SecretRule[] = [
  {
    id: "private-key",
    title: "a PEM private key",
    pattern:
      /-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----[\s\S]{16,}?-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----/g,
  },
  {
    id: "github-pat",
    title: "a GitHub personal access token",
    pattern: /\bghp_[0-9A-Za-z]{36}\b/g,
  },
  {
    id: "github-fine-grained-pat",
    title: "a GitHub fine-grained token",
    pattern: /\bgithub_pat_\w{82}\b/g,
  },
  { id: "github-oauth", title: "a GitHub OAuth token", pattern: /\bgho_[0-9A-Za-z]{36}\b/g },
  {
    id: "github-app-token",
    title: "a GitHub app token",
    pattern: /\b(?:ghu|ghs)_[0-9A-Za-z]{36}\b/g,
  },
  {
    id: "github-refresh-token",
    title: "a GitHub refresh token",
    pattern: /\bghr_[0-9A-Za-z]{36}\b/g,
  },
  { id: "gitlab-pat", title: "a GitLab personal access token", pattern: /\bglpat-[\w-]{20}\b/g },
  {
    id: "aws-access-token",
    title: "an AWS access key id",
    pattern: /\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b/g,
  },
  {
    id: "slack-bot-token",
    title: "a Slack token",
    pattern: /\bxox[abposr]-[0-9]{10,13}-[0-9A-Za-z-]{10,}\b/g,
  },
  {
    id: "slack-webhook-url",
    title: "a Slack webhook URL",
    pattern: /\bhooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9+/]{43,56}/g,
  },
  {
    id: "stripe-access-token",
    title: "a Stripe secret or restricted key",
    pattern: /\b(?:sk|rk)_(?:test|live|prod)_[0-9A-Za-z]{10,99}\b/g,
  },
  {
    id: "openai-api-key",
    title: "an OpenAI API key",
    pattern: /\bsk-(?:(?:proj|svcacct|admin)-[\w-]{20,}|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20})/g,
  },
  {
    id: "anthropic-api-key",
    title: "an Anthropic API key",
    pattern: /\bsk-ant-(?:api|admin)\d{2}-[\w-]{80,}/g,
  },
  { id: "gcp-api-key", title: "a Google API key", pattern: /\bAIza[\w-]{35}\b/g },
  { id: "npm-access-token", title: "an npm access token", pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
  {
    id: "sendgrid-api-token",
    title: "a SendGrid API key",
    pattern: /\bSG\.[\w-]{22}\.[\w-]{43}\b/g,
  },
  {
    id: "huggingface-access-token",
    title: "a Hugging Face token",
    pattern: /\bhf_[A-Za-z]{34}\b/g,
  },
  { id: "twilio-api-key", title: "a Twilio API key", pattern: /\bSK[0-9a-fA-F]{32}\b/g },
  {
    id: "shopify-access-token",
    title: "a Shopify access token",
    pattern: /\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b/g,
  },
  {
    id: "digitalocean-pat",
    title: "a DigitalOcean token",
    pattern: /\bdo[opr]_v1_[a-f0-9]{64}\b/g,
  },
  {
    id: "jwt",
    title: "a JSON Web Token",
    pattern: /\beyJ[\w-]{10,}\.eyJ[\w-]{10,}\.[\w-]{10,}/g,
  },
  {
    // Not a gitleaks id: a URL whose user-info holds a password (RFC 3986 §3.2.1 deprecates it
    // for exactly this reason), as database and broker connection strings carry it.
    id: "url-password",
    title: "a connection string with a password",
    pattern: /\b[a-z][a-z0-9+.-]{1,20}:\/\/[^\s:/@"'<>]{1,128}:[^\s/@"'<>]{1,256}@[^\s/"'<>]+/gi,
  },
];
