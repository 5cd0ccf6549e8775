"""The site build, one module a job; `build.py` at the top of the repo is its command line.

What goes into dist/ (built in a temporary folder and renamed into place, so dist/ is never
half-built):

    index.html, app/, static/        the page (copied; app/vendor/cm6-entry.js is a build input)
    app/vendor/cm6*.js               CodeMirror 6 bundled by esbuild from npm: cm6.js (what
                                     app/editor.js imports), its parts and their shared chunks
    pyodide/                         Pyodide core files (npm tarball) plus the numpy wheel (from
                                     a donor wheel on PyPI), checked against the sha256 in the
                                     npm pyodide-lock.json
    wheels/pe_engine-*.whl           the engine, built by setuptools (pyproject.toml's backend)
                                     with bytecode compiled by that Pyodide
    precomputed.json                 the opening state's records (the first frame)
    precomputed/<example id>.json    each example's records in every mode (fetched when needed)
    manifest.json                    engine wheel name and sha256, build hash, input hash
    sw.js                            the service worker (app/sw.js with the build hash and the
                                     list of files filled in): caches the build for repeat visits
    _headers                         the same HTTP headers as `serve`, for static hosts

Modules: common (paths, logging, hashing, cached downloads), pyodide (the Pyodide core and its
packages), engine_wheel (the engine wheel), frontend (node_modules, the CodeMirror bundle, the page
files), site (assembly, manifest, service worker, staleness), headers (the HTTP headers, one
definition for the server and _headers), server (the dev server), cli (`build.py`'s arguments).

Downloads are cached under .cache/ keyed by version (and node_modules by the lockfile's hash),
so a second build makes no network request.
"""
