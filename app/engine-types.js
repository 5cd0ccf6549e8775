// The engine client's types (engine-client.js): what it says of its engine, and what a call
// takes. Types only (JSDoc for tsc --checkJs), like the contract's record.js.

/** @typedef {import("./engine-answers.js").EngineFailure} EngineFailure */
/**
 * What an EngineError carries besides its type and message (engine-answers.js reads them).
 * @typedef {Omit<EngineFailure, "message" | "type"> & {interrupted?: boolean, cause?: unknown, traceback?: string}} EngineErrorExtra
 */
/** @typedef {"loading" | "ready" | "busy" | "error"} EngineState */
/**
 * What the client knows of its engine: the boot's progress and timings, and what went wrong.
 * @typedef {object} EngineInfo
 * @property {string | null} stage the boot's stage while loading, "ready" once booted
 * @property {{worker: Record<string, number>, sinceNavigation: Record<string, number>, bootMs: number,
 *            files: Record<string, number>} | null} timings
 * @property {Record<string, string | null> | null} versions
 * @property {{type: string, message: string} | null} error why the boot failed
 * @property {number} restarts
 * @property {number} interrupts
 * @property {boolean} interruptible the frame holds an interrupt buffer
 * @property {{directive: string, blockedURI: string}[]} cspViolations
 */
/**
 * @typedef {object} CallOptions
 * @property {number} [timeoutMs]
 * @property {boolean} [interrupt] false: skip the soft interrupt, restart right away
 * @property {boolean} [quiet] asked ahead of the reader
 * @property {{hurry?: () => void}} [handle] gets `hurry()`: the reader waits for the call now
 */
/**
 * A call queued or in flight.
 * @typedef {object} Call
 * @property {string} fn
 * @property {object} kwargs
 * @property {(result: unknown) => void} resolve
 * @property {(err: import("./engine-client.js").EngineError) => void} reject
 * @property {number} timeoutMs
 * @property {boolean | undefined} interrupt
 * @property {boolean} quiet
 * @property {number} [id]
 * @property {number} [started]
 * @property {ReturnType<typeof setTimeout>} [timer]
 * @property {ReturnType<typeof setTimeout>} [graceTimer]
 * @property {boolean} [timedOut]
 * @property {boolean} [interruptSent]
 * @property {boolean} [cancelled]
 */
/**
 * The client createEngine returns.
 * @typedef {object} EngineClient
 * @property {Promise<EngineInfo>} ready the boot; rejects if the engine could not start
 * @property {EngineState} state
 * @property {EngineInfo} info
 * @property {(fn: string, kwargs?: object, opts?: CallOptions) => Promise<any>} call any: what `fn` returned,
 *   as JSON (the caller checks it: engine-answers.js)
 * @property {(cb: (state: EngineState, info: EngineInfo) => void) => () => boolean} onState
 * @property {() => Promise<EngineInfo>} restart
 * @property {() => void} close
 */

export {};
