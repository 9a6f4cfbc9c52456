/**
 * Every answer the HTTP tests receive, checked against the service's own OpenAPI document: its
 * status must be documented for the operation, and a JSON body must match that status's schema.
 * A client generated from the document, or one validating answers by it, then never meets an
 * answer it was not told of.
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Response } from 'supertest';

type Schema = Record<string, unknown>;
type Operation = { responses: Record<string, { content?: Record<string, { schema: Schema }> }> };
type Document = { paths: Record<string, Record<string, Operation>>; components: Schema };

export interface Conformance {
  /** Throws, naming the request, when the answer is not one the document describes; answers of undocumented paths pass. */
  check(res: Response): void;
}

export function conformanceTo(document: Document): Conformance {
  // The document's references (#/components/...) resolve inside each compiled schema: its root carries the components.
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const templates = Object.keys(document.paths).map((template) => ({
    template,
    pattern: new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`),
  }));
  const compiled = new Map<string, ValidateFunction>();
  return {
    check(res) {
      const req = (res as unknown as { req: { method: string; path: string } }).req;
      const path = req.path.split('?')[0];
      const found = templates.find((t) => t.pattern.test(path));
      const operation = found && document.paths[found.template][req.method.toLowerCase()];
      if (!operation) return;
      const what = `${req.method} ${req.path} answered ${res.status}`;
      const documented = operation.responses[String(res.status)];
      if (!documented)
        throw new Error(
          `${what}, a status its operation does not document (${Object.keys(operation.responses).join(', ')}): ${JSON.stringify(res.body)}`,
        );
      const mediaType = String(res.headers['content-type'] ?? '').split(';')[0];
      if (documented.content && !(mediaType in documented.content))
        throw new Error(
          `${what} as ${mediaType}, which its document does not list (${Object.keys(documented.content).join(', ')})`,
        );
      const json = documented.content?.['application/json'];
      if (!json || !/^application\/json/.test(String(res.headers['content-type']))) return;
      const key = `${found.template} ${req.method} ${res.status}`;
      let validate = compiled.get(key);
      if (!validate) {
        validate = ajv.compile({ ...json.schema, components: document.components });
        compiled.set(key, validate);
      }
      if (!validate(res.body))
        throw new Error(
          `${what} with a body its document does not describe: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(res.body).slice(0, 2000)}`,
        );
    },
  };
}
