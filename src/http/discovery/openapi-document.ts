import { LIMITS } from '../../core/limits.js';
import {
  DISCOVERY_DOCUMENT,
  type DiscoveryMethod,
  type DiscoveryParameter,
  type DiscoverySchema,
} from './discovery-document.js';

type Json = Record<string, unknown>;

const MAX_LEASE_SECONDS = LIMITS.maxLeaseMs / 1000;

/** Ranges this server enforces on the discovery's integer parameters (400 outside them). */
const PARAMETER_RANGES: Readonly<Record<string, { minimum: number; maximum: number }>> = {
  numTasks: { minimum: 1, maximum: LIMITS.maxTasksPerLease },
  leaseSecs: { minimum: 0, maximum: MAX_LEASE_SECONDS },
  newLeaseSeconds: { minimum: 0, maximum: MAX_LEASE_SECONDS },
};

/** Parameters this server adds to discovery methods, documented here since the discovery cannot list them. */
const EXTRA_PARAMETERS: Readonly<Record<string, readonly Json[]>> = {
  'taskqueue.tasks.lease': [
    {
      name: 'waitSecs',
      in: 'query',
      description: `Extension: when nothing can be leased, wait up to this many seconds for tasks before answering (long poll).`,
      schema: { type: 'integer', minimum: 0, maximum: LIMITS.maxLeaseWaitMs / 1000, default: 0 },
    },
    {
      name: 'lease_secs',
      in: 'query',
      description: 'The spelling of leaseSecs in the App Engine documentation; give one of the two.',
      deprecated: true,
      schema: { type: 'integer', ...PARAMETER_RANGES.leaseSecs },
    },
  ],
  'taskqueue.tasks.list': [
    {
      name: 'maxResults',
      in: 'query',
      description: 'Extension: tasks per page (default 100).',
      schema: { type: 'integer', minimum: 1, maximum: 1000 },
    },
    {
      name: 'pageToken',
      in: 'query',
      description: 'Extension: the nextPageToken of the previous page.',
      schema: { type: 'string' },
    },
    {
      name: 'nextPageToken',
      in: 'query',
      description: 'Extension: the same as pageToken (the spelling of the Google API conventions).',
      schema: { type: 'string' },
    },
  ],
};

/** Request bodies this server takes where the discovery has none. */
const EXTRA_BODIES: Readonly<Record<string, Json>> = {
  'taskqueue.tasks.lease': {
    required: false,
    description:
      'Extension: early discovery clients send a JSON body with every POST. It may be empty ({}) or carry the lease parameters, ' +
      'under their camelCase or snake_case names; the query string wins where both give one. A form body is accepted too.',
    content: {
      'application/json': {
        schema: {
          type: 'object',
          additionalProperties: false,
          properties: Object.fromEntries(
            [
              ['numTasks', 'integer'],
              ['num_tasks', 'integer'],
              ['leaseSecs', 'integer'],
              ['lease_secs', 'integer'],
              ['groupByTag', 'boolean'],
              ['group_by_tag', 'boolean'],
              ['tag', 'string'],
              ['waitSecs', 'integer'],
              ['wait_secs', 'integer'],
            ].map(([name, type]) => [name, { type: type === 'string' ? 'string' : [type, 'string'] }]),
          ),
        },
      },
    },
  },
};

function schemaOf(schema: DiscoverySchema): Json {
  if (schema.$ref !== undefined) return { $ref: `#/components/schemas/${schema.$ref}` };
  const json: Json = { type: schema.type };
  if (schema.description !== undefined) json.description = schema.description;
  if (schema.format !== undefined) json.format = schema.format;
  if (schema.default !== undefined) json.default = schema.default;
  if (schema.items) json.items = schemaOf(schema.items);
  if (schema.properties) {
    json.properties = Object.fromEntries(
      Object.entries(schema.properties).map(([name, property]) => [name, schemaOf(property)]),
    );
  }
  return json;
}

function parameterOf(name: string, parameter: DiscoveryParameter): Json {
  const schema: Json = { type: parameter.type };
  if (parameter.format !== undefined) schema.format = parameter.format;
  if (parameter.enum) schema.enum = [...parameter.enum];
  if (parameter.default !== undefined)
    schema.default = parameter.type === 'boolean' ? parameter.default === 'true' : parameter.default;
  Object.assign(schema, PARAMETER_RANGES[name]);
  const json: Json = { name, in: parameter.location, schema };
  if (parameter.description !== undefined) json.description = parameter.description;
  if (parameter.required || parameter.location === 'path') json.required = true;
  return json;
}

function operationOf(method: DiscoveryMethod): Json {
  const parameters = [
    ...Object.entries(method.parameters ?? {}).map(([name, p]) => parameterOf(name, p)),
    ...(EXTRA_PARAMETERS[method.id] ?? []),
    ...Object.keys(DISCOVERY_DOCUMENT.parameters).map((name) => ({ $ref: `#/components/parameters/${name}` })),
  ];
  const success: Json = method.response
    ? {
        description: 'OK',
        content: { 'application/json': { schema: { $ref: `#/components/schemas/${method.response.$ref}` } } },
      }
    : { description: 'OK (empty body)' };
  const operation: Json = {
    operationId: method.id,
    summary: method.description,
    parameters,
    responses: { '200': success, default: { $ref: '#/components/responses/Error' } },
    security: [{ bearer: [] }, { oauthToken: [] }],
  };
  if (method.request) {
    operation.requestBody = {
      required: true,
      content: { 'application/json': { schema: { $ref: `#/components/schemas/${method.request.$ref}` } } },
    };
  }
  const extraBody = EXTRA_BODIES[method.id];
  if (extraBody) operation.requestBody = extraBody;
  return operation;
}

/**
 * An OpenAPI 3.1 description of the same surface as the discovery
 * document, generated from it (so the two cannot disagree), plus what this
 * server adds: the ranges it enforces, `waitSecs` and `lease_secs` on lease,
 * `maxResults`/`pageToken`/`nextPageToken` on list, and the error envelope.
 */
export function openApiDocument(serverUrl: string): Json {
  const paths: Record<string, Json> = {};
  for (const resource of Object.values(DISCOVERY_DOCUMENT.resources)) {
    for (const method of Object.values(resource.methods)) {
      const path = `${DISCOVERY_DOCUMENT.basePath}${method.path}`;
      paths[path] = { ...paths[path], [method.httpMethod.toLowerCase()]: operationOf(method) };
    }
  }
  const update = DISCOVERY_DOCUMENT.resources.tasks?.methods.update;
  if (update) {
    const path = `${DISCOVERY_DOCUMENT.basePath}${update.path}`;
    paths[path] = {
      ...paths[path],
      put: {
        ...operationOf(update),
        operationId: 'taskqueue.tasks.replace',
        summary: 'Extension: update with replace semantics (a tag left out of the body is cleared).',
      },
    };
  }
  const schemas: Record<string, Json> = Object.fromEntries(
    Object.entries(DISCOVERY_DOCUMENT.schemas).map(([name, schema]) => [name, schemaOf(schema)]),
  );
  schemas.Tasks2 = {
    ...schemas.Tasks2,
    properties: {
      ...((schemas.Tasks2 as Json).properties as Json),
      nextPageToken: {
        type: 'string',
        description: 'Extension: pass as pageToken to get the next page; absent on the last page.',
      },
    },
  };
  schemas.Error = errorSchema();
  return {
    openapi: '3.1.0',
    info: {
      title: DISCOVERY_DOCUMENT.title,
      version: DISCOVERY_DOCUMENT.version,
      description: `${DISCOVERY_DOCUMENT.description} Compatible re-implementation of discovery revision ${DISCOVERY_DOCUMENT.revision}. Paths may also be written without the project (\`/taskqueue/v1beta2/projects/taskqueues/{taskqueue}/...\`).`,
    },
    servers: [{ url: serverUrl }],
    paths,
    components: {
      schemas,
      parameters: Object.fromEntries(
        Object.entries(DISCOVERY_DOCUMENT.parameters).map(([name, p]) => [name, parameterOf(name, p)]),
      ),
      responses: {
        Error: {
          description: "Google's error envelope",
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      },
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: `OAuth 2.0 access token; scopes: ${Object.keys(DISCOVERY_DOCUMENT.auth.oauth2.scopes).join(', ')}`,
        },
        oauthToken: { type: 'apiKey', in: 'query', name: 'oauth_token' },
      },
    },
  };
}

function errorSchema(): Json {
  return {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['errors', 'code', 'message'],
        properties: {
          errors: {
            type: 'array',
            items: {
              type: 'object',
              required: ['domain', 'reason', 'message'],
              properties: {
                domain: { type: 'string', const: 'global' },
                reason: { type: 'string' },
                message: { type: 'string' },
                locationType: { type: 'string', enum: ['parameter', 'header'] },
                location: { type: 'string' },
              },
            },
          },
          code: { type: 'integer' },
          message: { type: 'string' },
        },
      },
    },
  };
}
