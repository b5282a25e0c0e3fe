/** Vite's `?raw` suffix imports a file's text, e.g. a saved audit export for replay. */
declare module "*?raw" {
  const text: string;
  export default text;
}
