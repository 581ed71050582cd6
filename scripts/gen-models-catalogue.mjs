// gen-models-catalogue.mjs writes config/models_catalogue.json from pi-ai's generated model
// list, so that pigo's model facts (and the list of pi's built-in providers) are pi's.
//
//   node scripts/gen-models-catalogue.mjs [PI_AI_DIST] > config/models_catalogue.json
//
// Besides the facts pigo checks with (id, api, baseUrl, reasoning, input, limits, cost) it keeps
// name, compat and thinkingLevelMap, which the providers need to build requests as pi does.
//
// PI_AI_DIST defaults to the npm cache the tests use. config/catalogue_test.go runs this
// script when pi-ai is present and fails when the embedded file has drifted.
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const dist = process.argv[2] ??
  "/root/go/pkg/mod/cache/pigo-npm/node_modules/@earendil-works/pi-ai/dist";
const { MODELS } = await import(pathToFileURL(join(dist, "models.generated.js")).href);

const lines = [];
for (const [provider, models] of Object.entries(MODELS)) {
  for (const m of Array.isArray(models) ? models : Object.values(models)) {
    const c = m.cost ?? {};
    const entry = {
      provider,
      id: m.id,
      name: m.name ?? m.id,
      api: m.api,
      baseUrl: m.baseUrl,
      reasoning: !!m.reasoning,
      input: m.input ?? ["text"],
      contextWindow: m.contextWindow,
      maxTokens: m.maxTokens,
      cost: { input: c.input ?? 0, output: c.output ?? 0, cacheRead: c.cacheRead ?? 0, cacheWrite: c.cacheWrite ?? 0 },
    };
    // What the providers need to build requests as pi does, when pi-ai sets it.
    if (m.thinkingLevelMap) entry.thinkingLevelMap = m.thinkingLevelMap;
    if (m.compat) entry.compat = m.compat;
    lines.push(JSON.stringify(entry));
  }
}
process.stdout.write("[\n" + lines.join(",\n") + "\n]\n");
