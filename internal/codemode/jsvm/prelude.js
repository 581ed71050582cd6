// The script-side API of codemode (reference runtime-behaviour §3.1). It is evaluated once
// per VM before the script and returns the host's handle {settle, run, stalled}. The bridge
// the host registers is taken off the global object first, so a script can reach the host
// only through the functions defined here. Every function is named codemode$… so its
// frames can be dropped from the stacks a script sees.
(function codemode$prelude(toolsJson, storeJson, discover) {
	"use strict";
	const bridge = globalThis.__codemode_bridge;
	delete globalThis.__codemode_bridge;
	const stringify = JSON.stringify;
	const parse = JSON.parse;
	const promiseThen = Promise.prototype.then;
	const ErrorCtor = Error;
	const TypeErrorCtor = TypeError;
	const RangeErrorCtor = RangeError;
	const MapCtor = Map;
	const PromiseCtor = Promise;
	const IMAGE_EXPECTS = "image expects a non-empty image URL string, an object with image_url, or a raw MCP image block";
	const MAX_VALUE = 262144;
	const MAX_TOTAL = 1048576;

	class CallFailedError extends ErrorCtor {
		constructor(message) {
			super(message);
			this.name = "CallFailedError";
		}
	}
	const pending = new MapCtor();
	let nextId = 1;
	let finished = false;
	const EXIT = Object.freeze({});

	function codemode$done(ok, payload, writes) {
		if (finished) return;
		finished = true;
		bridge("done", ok, payload, writes);
	}

	function codemode$keep(line) {
		return line.trim() !== "" && !line.includes("at codemode$") && !line.includes("at CallFailedError (");
	}

	// QuickJS stacks hold frames only: add the "Name: message" head, drop this file's frames.
	function codemode$errorText(error) {
		const head = error.message ? error.name + ": " + error.message : String(error.name);
		const frames = typeof error.stack === "string" ? error.stack.split("\n").filter(codemode$keep) : [];
		return [head, ...frames].join("\n");
	}

	function codemode$format(value) {
		if (typeof value === "string") return value;
		if (value instanceof ErrorCtor) return codemode$errorText(value);
		try {
			const json = stringify(value);
			return json === undefined ? String(value) : json;
		} catch {
			return String(value);
		}
	}

	function codemode$describe(error) {
		if (error instanceof ErrorCtor) {
			return stringify({ name: error.name, message: error.message, stack: codemode$errorText(error) });
		}
		return stringify({ message: codemode$format(error) });
	}

	function codemode$request(kind, name, json) {
		return new PromiseCtor(function codemode$executor(resolve, reject) {
			const id = nextId++;
			pending.set(id, { resolve, reject });
			bridge(kind, id, name, json);
		});
	}

	function codemode$caller(name) {
		return function codemode$invoke(args) {
			let json;
			try {
				json = args === undefined ? undefined : stringify(args);
			} catch (error) {
				return PromiseCtor.reject(error);
			}
			return codemode$request("call", name, json);
		};
	}

	const callers = new MapCtor();
	const allTools = [];
	for (const { name, description } of parse(toolsJson)) {
		if (callers.has(name)) continue;
		callers.set(name, codemode$caller(name));
		allTools.push(Object.freeze({ name, description }));
	}
	Object.freeze(allTools);

	function codemode$call(name, args) {
		const fn = callers.get(name);
		if (fn === undefined) {
			return PromiseCtor.reject(new CallFailedError('Tool "' + String(name) + '" is not available in codemode.'));
		}
		return fn(args);
	}
	Object.freeze(codemode$call);

	const readFile = codemode$caller("fs.read");
	const writeFile = codemode$caller("fs.write");
	const fs = Object.freeze({
		read: function codemode$fsRead(path) { return readFile({ path }); },
		write: function codemode$fsWrite(path, content) { return writeFile({ path, content }); },
	});

	// pi 1.6's discovery functions (discover.go answers them through the bridge).
	const searchCaller = codemode$caller("codemode.searchTools");
	const describeToolCaller = codemode$caller("codemode.describeTool");
	const describeNamespaceCaller = codemode$caller("codemode.describeNamespace");
	function codemode$searchTools(query, options) { return searchCaller({ query, options }); }
	function codemode$describeTool(name) { return describeToolCaller({ name }); }
	function codemode$describeNamespace(name) { return describeNamespaceCaller({ name }); }

	function codemode$sleep(seconds) {
		const ms = Number(seconds) * 1000;
		return codemode$request("sleep", ms > 0 ? ms : 0);
	}
	Object.freeze(codemode$sleep);

	const stored = new MapCtor();
	const writes = new MapCtor();
	let storedChars = 0;
	for (const [key, value] of Object.entries(parse(storeJson))) {
		const json = stringify(value);
		if (json === undefined) continue;
		stored.set(key, json);
		storedChars += key.length + json.length;
	}

	function codemode$checkKey(name, key) {
		if (typeof key !== "string") throw new TypeErrorCtor(name + "() key must be a string");
	}

	const store = Object.freeze({
		set: function codemode$storeSet(key, value) {
			codemode$checkKey("store.set", key);
			const previous = stored.has(key) ? key.length + stored.get(key).length : 0;
			if (value === undefined) {
				stored.delete(key);
				storedChars -= previous;
				writes.set(key, undefined);
				return;
			}
			let json;
			try {
				json = stringify(value);
			} catch (error) {
				throw new TypeErrorCtor("store.set(" + stringify(key) + ") value is not JSON-serializable: " + codemode$format(error));
			}
			if (json === undefined) {
				throw new TypeErrorCtor("store.set(" + stringify(key) + ") value is not JSON-serializable");
			}
			if (json.length > MAX_VALUE) {
				throw new RangeErrorCtor("store.set(" + stringify(key) + ") value exceeds " + MAX_VALUE + " characters of JSON");
			}
			const next = storedChars - previous + key.length + json.length;
			if (next > MAX_TOTAL) {
				throw new RangeErrorCtor("store is full: stored values would exceed " + MAX_TOTAL + " characters of JSON");
			}
			stored.set(key, json);
			storedChars = next;
			writes.set(key, json);
		},
		get: function codemode$storeGet(key) {
			codemode$checkKey("store.get", key);
			const json = stored.get(key);
			return json === undefined ? undefined : parse(json);
		},
		list: function codemode$storeList() {
			return Array.from(stored.keys()).sort();
		},
	});

	function codemode$writes() {
		const entries = [];
		for (const [key, json] of writes) entries.push(json === undefined ? [key] : [key, json]);
		return stringify(entries);
	}

	function codemode$outputText(value) {
		if (value === undefined || value === null || (typeof value !== "object" && typeof value !== "function")) {
			return String(value);
		}
		const json = stringify(value);
		return json === undefined ? String(value) : json;
	}

	function codemode$text(value) {
		let rendered;
		try {
			rendered = codemode$outputText(value);
		} catch (error) {
			throw new TypeErrorCtor(error instanceof ErrorCtor ? error.message : String(error));
		}
		if (!finished) bridge("output", "text", rendered);
	}

	function codemode$imageUrl(value) {
		if (typeof value === "string") return value;
		if (typeof value !== "object" || value === null || Array.isArray(value)) throw new TypeErrorCtor(IMAGE_EXPECTS);
		if (value.image_url !== undefined) {
			if (typeof value.image_url !== "string") throw new TypeErrorCtor(IMAGE_EXPECTS);
			return value.image_url;
		}
		if (typeof value.type !== "string") throw new TypeErrorCtor(IMAGE_EXPECTS);
		if (value.type !== "image") throw new TypeErrorCtor('image only accepts MCP image blocks, got "' + value.type + '"');
		if (typeof value.data !== "string" || value.data === "") throw new TypeErrorCtor("image expected MCP image data");
		if (value.data.toLowerCase().startsWith("data:")) return value.data;
		const mimeType = typeof value.mimeType === "string" && value.mimeType ? value.mimeType : "application/octet-stream";
		return "data:" + mimeType + ";base64," + value.data;
	}

	function codemode$image(value) {
		const url = codemode$imageUrl(value);
		if (url === "") throw new TypeErrorCtor(IMAGE_EXPECTS);
		const colon = url.indexOf(":");
		const scheme = colon === -1 ? "" : url.slice(0, colon).toLowerCase();
		if (scheme === "http" || scheme === "https") {
			throw new TypeErrorCtor("remote image URLs are not supported in tool outputs. Pass a base64 data URI instead");
		}
		const comma = url.indexOf(",");
		const header = comma === -1 ? [] : url.slice(colon + 1, comma).split(";");
		if (scheme !== "data" || comma === -1 || header.slice(1).every(function codemode$notB64(p) { return p.toLowerCase() !== "base64"; })) {
			throw new TypeErrorCtor("invalid image output. Pass a base64 data URI instead");
		}
		if (!finished) bridge("output", "image", url.slice(comma + 1), header[0] || "application/octet-stream");
	}

	function codemode$exit() {
		let json;
		try {
			json = codemode$writes();
		} catch (error) {
			codemode$done(false, codemode$describe(error));
			throw EXIT;
		}
		codemode$done(true, undefined, json);
		throw EXIT;
	}

	const console = {};
	for (const level of ["log", "info", "warn", "error", "debug"]) {
		console[level] = function codemode$console(...args) {
			if (!finished) bridge("output", "text", args.map(codemode$format).join(" "));
		};
	}
	Object.freeze(console);

	for (const [name, value] of [["call", codemode$call], ["CallFailedError", CallFailedError], ["ALL_TOOLS", allTools],
		["fs", fs], ["console", console], ["text", codemode$text], ["image", codemode$image], ["exit", codemode$exit], ["store", store], ["sleep", codemode$sleep]]) {
		Object.defineProperty(globalThis, name, { value, enumerable: true });
	}
	if (discover) {
		for (const [name, value] of [["searchTools", codemode$searchTools], ["describeTool", codemode$describeTool],
			["describeNamespace", codemode$describeNamespace]]) {
			Object.defineProperty(globalThis, name, { value: Object.freeze(value), enumerable: true });
		}
	}

	return {
		settle: function codemode$settle(id, ok, payload) {
			const entry = pending.get(id);
			if (!entry) return;
			pending.delete(id);
			if (!ok) {
				entry.reject(new CallFailedError(payload));
				return;
			}
			let value;
			try {
				value = payload === undefined ? undefined : parse(payload);
			} catch (error) {
				entry.reject(error);
				return;
			}
			entry.resolve(value);
		},
		run: function codemode$run(fn) {
			let promise;
			try {
				promise = fn();
			} catch (error) {
				if (error !== EXIT) codemode$done(false, codemode$describe(error));
				return;
			}
			promiseThen.call(
				promise,
				function codemode$fulfilled(value) {
					let json;
					try {
						json = value === undefined ? undefined : stringify(value, null, 2);
					} catch (error) {
						codemode$done(false, codemode$describe(error));
						return;
					}
					codemode$done(true, json, codemode$writes());
				},
				function codemode$rejected(error) {
					if (error !== EXIT) codemode$done(false, codemode$describe(error));
				},
			);
		},
		stalled: function codemode$stalled() {
			if (finished || pending.size > 0) return false;
			codemode$done(false, stringify({
				name: "Error",
				message: "The script is waiting on a promise that can never settle: no tool call is pending, and timers do not exist here.",
			}));
			return true;
		},
	};
})
