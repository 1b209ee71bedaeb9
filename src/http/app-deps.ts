import type { AccessControl } from '../auth/access-control.js';
import type { Logger } from '../core/logger.js';
import type { HttpObserver } from './request-log.js';
import type { RestService } from './rest-service.js';

/** Whether the server can take traffic, and if not, why (a short machine-readable reason and a sentence). */
export type Readiness =
  | { readonly ready: true }
  | {
      readonly ready: false;
      readonly reason: 'database' | 'migrations' | 'config' | 'stopping';
      readonly message: string;
    };

/** The Prometheus exposition the server renders (see ops/service-metrics.ts). */
export interface MetricsSource {
  /** `on`: anyone may scrape; `token`: only an administrator's bearer token. (`off` registers no route.) */
  readonly access: 'on' | 'token';
  render(): Promise<{ readonly contentType: string; readonly body: string }>;
}

/** What `createApp` needs: the service, and optionally access control and the server's public URL. */
export interface AppDeps {
  readonly service: RestService;
  /** Authentication and ACLs; default OPEN_ACCESS (everyone may do everything). */
  readonly accessControl?: AccessControl;
  /**
   * The URL clients reach this server at (`https://tq.example.com/`), for
   * the `rootUrl` of the served discovery document. Default: the scheme and
   * Host of each request.
   */
  readonly publicUrl?: string;
  /**
   * Every project administrator (TASKQUEUE_ADMINS and queue.xml
   * `<admin-email>`), shown as `acl.adminEmails`. Default: the queue.xml ones.
   */
  readonly adminEmails?: readonly string[];
  /** Where the request log goes (one line per request); default: nowhere. */
  readonly logger?: Logger;
  /** Counts requests by route, method and status (metrics). */
  readonly httpObserver?: HttpObserver;
  /** Serves GET /metrics when given. */
  readonly metrics?: MetricsSource;
  /** The readiness check of GET /readyz; default: the database answers. */
  readonly readiness?: () => Promise<Readiness>;
  /**
   * Aborted when the server starts shutting down: pending long-poll leases
   * answer at once with what they have, and responses say `Connection: close`.
   */
  readonly shutdown?: AbortSignal;
  /** The one location of the Cloud Tasks v2 paths (TASKQUEUE_LOCATION); default `us-central1`. */
  readonly cloudTasksLocation?: string;
}

/** AppDeps with the defaults filled in. */
export interface ResolvedDeps {
  readonly service: RestService;
  readonly accessControl: AccessControl;
  readonly publicUrl: string | undefined;
  /** Undefined: the queue.xml administrators (read when needed). */
  readonly adminEmails: readonly string[] | undefined;
  /** Aborted when the server starts shutting down. */
  readonly shutdown?: AbortSignal | undefined;
  /** The one location of the Cloud Tasks v2 paths; undefined = `us-central1`. */
  readonly cloudTasksLocation?: string | undefined;
}
