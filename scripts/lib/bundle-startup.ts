/**
 * Which modules of a bundle run when it loads, read from an unminified esbuild bundle (as
 * `wrangler deploy --dry-run --minify=false` writes it). esbuild starts each module with a
 * `// path` comment. A module it inlines at the top level runs at load; a module reached by a
 * dynamic `import()` is wrapped, with everything it imports, in `var init_x = __esm({ "path"() {
 * … } })`, and runs only when `init_x()` is called. A wrapper runs at load when its `init_x();`
 * stands at the top level, or at the start of another wrapper's body (its own imports) that
 * runs at load; an `init_x()` inside a function (the dynamic import's `.then(() => (init_x(),
 * …))`) runs only when that function does.
 */

/** One module of the bundle: its path and the wrapper that runs it, or null when inlined. */
interface Module {
  path: string;
  init: string | null;
}

/** The paths of the modules the bundle evaluates when it loads, in bundle order. */
export function modulesRunAtLoad(bundle: string): string[] {
  const lines = bundle.split("\n");
  const modules: Module[] = [];
  /** Each wrapper's `init_*` calls at the top of its body: the imports it runs first. */
  const runsFirst = new Map<string, string[]>();
  /** `init_*` calls at the bundle's top level. */
  const atLoad: string[] = [];
  let inWrapper: string | null = null;
  for (const line of lines) {
    const path = /^\/\/ (\S+\.\w+)$/.exec(line)?.[1];
    if (path !== undefined && inWrapper === null) {
      modules.push({ path, init: null });
      continue;
    }
    const opens = /^var (init_\w+) = __esm\(\{$/.exec(line)?.[1];
    if (opens !== undefined) {
      inWrapper = opens;
      runsFirst.set(opens, []);
      const module = modules.at(-1);
      if (module !== undefined && module.init === null) module.init = opens;
      continue;
    }
    if (inWrapper !== null && line === "});") {
      inWrapper = null;
      continue;
    }
    const call = /^( *)(init_\w+)\(\);$/.exec(line);
    if (call === null) continue;
    const [, indent, name] = call;
    if (inWrapper === null && indent === "") atLoad.push(name ?? "");
    else if (inWrapper !== null && indent === "    ") runsFirst.get(inWrapper)?.push(name ?? "");
  }
  const run = new Set<string>();
  const visit = (init: string) => {
    if (run.has(init)) return;
    run.add(init);
    for (const next of runsFirst.get(init) ?? []) visit(next);
  };
  for (const init of atLoad) visit(init);
  return modules.filter((m) => m.init === null || run.has(m.init)).map((m) => m.path);
}
