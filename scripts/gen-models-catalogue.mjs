// gen-models-catalogue.mjs writes config/models_catalogue.json from pi-ai's built-in model
// catalogue, so that pigo's model facts (and the list of pi's built-in providers) are pi's.
//
//   node scripts/gen-models-catalogue.mjs [PI_AI_16_DIR] [PI_AI_084_DIST] > config/models_catalogue.json
//
// pi 1.6.0 is the reference for providers (spec D23): its providers' chat models come first,
// provider by provider in pi's order. A model only pi 0.84's list has (a user's older default,
// such as openai-codex/gpt-5.4-mini, or the provider id azure-openai-responses that pi 1.6
// renamed azure) is kept after its provider's 1.6 models, so a setting that worked goes on
// working.
//
// Besides the facts pigo checks with (id, api, baseUrl, reasoning, input, limits, cost) it keeps
// name, compat, thinkingLevelMap and headers (GitHub Copilot's editor identity), which the providers need to build requests as pi does.
//
// The defaults are the npm cache the tests use. config/catalogue_test.go runs this script when
// pi-ai is present and fails when the embedded file has drifted.
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const cache = "/root/go/pkg/mod/cache/pigo-npm";
const dir16 = process.argv[2] ?? join(cache, "pi-1.6.0/node_modules/@earendil-works/pi-ai");
const dist084 = process.argv[3] ?? join(cache, "node_modules/@earendil-works/pi-ai/dist");

function entry(provider, m) {
  const c = m.cost ?? {};
  const e = {
    provider,
    id: m.id,
    name: m.name ?? m.id,
    api: m.api,
    baseUrl: m.baseUrl ?? "",
    reasoning: !!m.reasoning,
    input: m.input ?? ["text"],
    contextWindow: m.contextWindow,
    maxTokens: m.maxTokens,
    cost: { input: c.input ?? 0, output: c.output ?? 0, cacheRead: c.cacheRead ?? 0, cacheWrite: c.cacheWrite ?? 0 },
  };
  if (m.thinkingLevelMap) e.thinkingLevelMap = m.thinkingLevelMap;
  if (m.compat) e.compat = m.compat;
  if (m.headers) e.headers = m.headers;
  return e;
}

const byProvider = new Map();
const seen = new Set();
const add = (provider, m) => {
  const key = provider + "\0" + m.id;
  if (seen.has(key)) return;
  seen.add(key);
  if (!byProvider.has(provider)) byProvider.set(provider, []);
  byProvider.get(provider).push(JSON.stringify(entry(provider, m)));
};

const all = await import(pathToFileURL(join(dir16, "dist/providers/all.js")).href);
for (const p of all.builtinProviders()) {
  for (const m of p.getModels()) add(p.id, m);
}
const { MODELS } = await import(pathToFileURL(join(dist084, "models.generated.js")).href);
for (const [provider, models] of Object.entries(MODELS)) {
  for (const m of Array.isArray(models) ? models : Object.values(models)) add(provider, m);
}
const lines = [...byProvider.values()].flat();
process.stdout.write("[\n" + lines.join(",\n") + "\n]\n");
