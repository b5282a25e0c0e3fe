/**
 * The console's progressive JavaScript, served as a same-origin file (the CSP forbids
 * inline scripts). Every page works without it; with it, an active run's timeline and
 * summary refresh once a second, and the run filter applies on change.
 */
export const CONSOLE_JS = `
"use strict";
(function () {
  const POLL_MS = 1000;

  function afterSeq(timeline) {
    const entries = [...timeline.querySelectorAll("tbody[data-seq]")];
    const pending = entries.filter((e) => e.dataset.decision === "pending");
    if (pending.length > 0) return Math.min(...pending.map((e) => Number(e.dataset.seq))) - 1;
    const lasts = entries.map((e) => Number(e.dataset.last || e.dataset.seq));
    return lasts.length === 0 ? 0 : Math.max(...lasts);
  }

  async function poll(timeline, status) {
    const url = timeline.dataset.live + "?after=" + afterSeq(timeline);
    const res = await fetch(url, { credentials: "same-origin", headers: { Accept: "text/html" } });
    if (!res.ok) return false;
    const doc = new DOMParser().parseFromString(await res.text(), "text/html");
    const summary = doc.getElementById("run-summary");
    const current = document.getElementById("run-summary");
    if (summary && current) current.replaceWith(document.importNode(summary, true));
    for (const entry of doc.querySelectorAll("tbody[data-seq]")) {
      const fresh = document.importNode(entry, true);
      const old = document.getElementById(entry.id);
      if (old) old.replaceWith(fresh); else timeline.append(fresh);
    }
    const empty = document.getElementById("timeline-empty");
    if (empty && timeline.querySelector("tbody[data-seq]")) empty.remove();
    const now = document.getElementById("run-summary");
    const open = now && now.dataset.status === "open";
    const pending = timeline.querySelector('tbody[data-decision="pending"]');
    if (status) status.textContent = "Live: updated " + new Date().toISOString().replace("T", " ").slice(0, 19) + " UTC";
    return Boolean(open || pending);
  }

  function live(timeline) {
    const status = document.getElementById("live-status");
    const tick = async () => {
      let again = true;
      try { again = await poll(timeline, status); } catch { again = true; }
      if (again) setTimeout(tick, POLL_MS);
      else if (status) status.textContent = "The run is closed; no more updates.";
    };
    setTimeout(tick, POLL_MS);
  }

  function init() {
    const timeline = document.getElementById("timeline");
    if (timeline && timeline.dataset.live) live(timeline);
    for (const select of document.querySelectorAll("select[data-autosubmit]")) {
      select.addEventListener("change", () => select.form && select.form.submit());
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
`;
