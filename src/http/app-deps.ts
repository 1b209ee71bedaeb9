import type { AccessControl } from '../auth/access-control.js';
import type { RestService } from './rest-service.js';

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
}

/** AppDeps with the defaults filled in. */
export interface ResolvedDeps {
  readonly service: RestService;
  readonly accessControl: AccessControl;
  readonly publicUrl: string | undefined;
  /** Undefined: the queue.xml administrators (read when needed). */
  readonly adminEmails: readonly string[] | undefined;
}
