/** A connection pool at a glance (metrics); null where the engine has no pool (the embedded one). */
export interface PoolStats {
  /** Open connections, idle or in use. */
  readonly total: number;
  readonly idle: number;
  /** Queries waiting for a connection. */
  readonly waiting: number;
  /** Most connections the pool opens. */
  readonly max: number;
}
