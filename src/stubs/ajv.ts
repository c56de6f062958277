// Replaces `ajv` and `ajv-formats` in the Worker bundle (wrangler.toml [alias]): ajv compiles validators with `new Function`.
// The MCP SDK's Server imports its ajv provider at module top level, but we pass CfWorkerJsonSchemaValidator,
// so nothing here is ever called; if it were, the error says why.

export default function ajvUnavailable(): never {
  throw new Error(
    'ajv is not bundled in the Worker: pass CfWorkerJsonSchemaValidator as jsonSchemaValidator.',
  );
}
