/** The parts of a discovery document this server reads. */
export interface DiscoveryDocument {
  readonly rootUrl: string;
  readonly servicePath: string;
  readonly basePath: string;
  readonly baseUrl: string;
  readonly title: string;
  readonly description: string;
  readonly version: string;
  readonly revision: string;
  readonly parameters: Readonly<Record<string, DiscoveryParameter>>;
  readonly schemas: Readonly<Record<string, DiscoverySchema>>;
  readonly resources: Readonly<Record<string, { readonly methods: Readonly<Record<string, DiscoveryMethod>> }>>;
  readonly auth: { readonly oauth2: { readonly scopes: Readonly<Record<string, { readonly description: string }>> } };
}

export interface DiscoveryParameter {
  readonly type: string;
  readonly description?: string;
  readonly required?: boolean;
  readonly location: 'query' | 'path';
  readonly format?: string;
  readonly default?: string;
  readonly enum?: readonly string[];
}

export interface DiscoverySchema {
  readonly id?: string;
  /** Absent on a bare `{"$ref": ...}`. */
  readonly type?: string;
  readonly description?: string;
  readonly format?: string;
  readonly default?: string;
  readonly $ref?: string;
  readonly properties?: Readonly<Record<string, DiscoverySchema>>;
  readonly items?: DiscoverySchema;
}

export interface DiscoveryMethod {
  readonly id: string;
  readonly path: string;
  readonly httpMethod: string;
  readonly description: string;
  readonly parameters?: Readonly<Record<string, DiscoveryParameter>>;
  readonly parameterOrder?: readonly string[];
  readonly request?: { readonly $ref: string };
  readonly response?: { readonly $ref: string };
  readonly scopes: readonly string[];
}
