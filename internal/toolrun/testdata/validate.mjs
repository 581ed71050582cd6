// Oracle for validate_test.go: builds each JSON Schema as the seed and pi build theirs
// (TypeBox Type.*; string enums as pi-ai's StringEnum = Type.Unsafe) and runs pi-ai's
// validateToolArguments on the arguments. Reads cases as JSON on stdin, writes results.
import { readFileSync } from "node:fs";
const root = process.argv[2];
const { Type } = await import(root + "/typebox/build/index.mjs");
const { validateToolArguments } = await import(root + "/@earendil-works/pi-ai/dist/utils/validation.js");

function tb(s) {
  const { type, properties, required, items, anyOf, enum: en, const: c, ...opts } = s;
  if (anyOf) return Type.Union(anyOf.map(tb), opts);
  if (c !== undefined) return Type.Literal(c, opts);
  if (en) return Type.Unsafe({ type, enum: en, ...opts });
  switch (type) {
    case "string": return Type.String(opts);
    case "number": return Type.Number(opts);
    case "integer": return Type.Integer(opts);
    case "boolean": return Type.Boolean(opts);
    case "null": return Type.Null(opts);
    case "array": return Type.Array(tb(items), opts);
    case "object": {
      const req = new Set(required ?? []);
      const props = {};
      for (const [k, v] of Object.entries(properties ?? {})) props[k] = req.has(k) ? tb(v) : Type.Optional(tb(v));
      return Type.Object(props, opts);
    }
  }
  throw new Error("unsupported schema " + JSON.stringify(s));
}

const cases = JSON.parse(readFileSync(0, "utf8"));
const out = cases.map(({ name, schema, args }) => {
  try {
    return { ok: validateToolArguments({ name, parameters: tb(schema) }, { name, arguments: JSON.parse(args) }) };
  } catch (e) {
    return { error: e.message };
  }
});
process.stdout.write(JSON.stringify(out));
