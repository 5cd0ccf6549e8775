// What the page puts on `window` for the console, the browser tests and the dev harness
// (tsc --checkJs only; nothing here ships).
interface Window {
  explainer: any;
  explainerSections: any;
  peEngine: any;
  stage: any;
  stageLinks: any[];
  stageSteps: any[];
  stageRenderMs: number;
  __bootErrors: any[];
  __cspViolations: any[];
  // the worker fetching the engine's files, and how to start one (app/engine-fetch.js)
  engineFetcher?: Worker;
  startEngineFetcher: (urls: string[]) => Worker;
}
