import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { buildOpenApiDocument } from '../../src/http/openapi/document.js';

type Json = Record<string, any>;

/**
 * Holds every answer an integration test receives to the OpenAPI document: the status must be one the
 * operation documents, and a JSON body must match its schema. `startTestService().call` runs it on
 * every response, so the whole integration suite checks the document against the service.
 */
export class OpenApiCheck {
  private readonly doc: Json = buildOpenApiDocument('test');
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly templates: Array<{ regex: RegExp; path: string }>;

  constructor() {
    addFormats.default(this.ajv);
    this.ajv.addFormat('binary', true);
    this.ajv.addSchema(this.doc, 'openapi.json');
    this.templates = Object.keys(this.doc.paths as Json).map((path) => ({
      path,
      regex: new RegExp(`^${path.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    }));
  }

  /** Throws naming the route and what differs; answers outside the document (aliases, unknown paths, HEAD) pass. */
  check(method: string, url: string, status: number, contentType: string | null, text: string): void {
    const path = url.split('?')[0]!;
    const template = this.templates.find((t) => t.regex.test(path))?.path;
    const verb = method.toLowerCase();
    const operation = template === undefined ? undefined : (this.doc.paths[template] as Json)[verb];
    if (!operation) return;
    const where = `${method.toUpperCase()} ${template} → ${status}`;
    let response = operation.responses[String(status)] as Json | undefined;
    if (!response) throw new Error(`OpenAPI: ${where} is not a documented answer (documented: ${Object.keys(operation.responses).join(', ')})`);
    let pointer = `#/paths/${escape(template!)}/${verb}/responses/${status}`;
    if (typeof response.$ref === 'string') {
      pointer = response.$ref;
      response = this.resolve(response.$ref);
    }
    const media = (contentType ?? '').split(';')[0]!.trim();
    if ((media !== 'application/json' && media !== 'application/x-ndjson') || text === '') return;
    if (!response.content?.[media]) throw new Error(`OpenAPI: ${where} answered ${media}, the document says ${Object.keys(response.content ?? {}).join(', ') || 'no body'}`);
    const validate = this.validator(`openapi.json${pointer}/content/${escape(media)}/schema`);
    // NDJSON: each line is one value of the schema.
    const values = media === 'application/json' ? [text] : text.split('\n').filter((line) => line !== '');
    for (const value of values) {
      const body: unknown = JSON.parse(value);
      if (!validate(body)) {
        throw new Error(`OpenAPI: ${where} body does not match the document: ${this.ajv.errorsText(validate.errors)}\n${value.slice(0, 500)}`);
      }
    }
  }

  private validator(ref: string): ValidateFunction {
    let validate = this.validators.get(ref);
    if (!validate) this.validators.set(ref, (validate = this.ajv.compile({ $ref: ref })));
    return validate;
  }

  private resolve(ref: string): Json {
    return ref.slice(2).split('/').reduce((node: Json, part) => node[part.replace(/~1/g, '/').replace(/~0/g, '~')], this.doc);
  }
}

function escape(path: string): string {
  return path.replace(/~/g, '~0').replace(/\//g, '~1');
}

let shared: OpenApiCheck | undefined;
export function openApiCheck(): OpenApiCheck {
  return (shared ??= new OpenApiCheck());
}
