import type { Child } from 'hono/jsx';
import type { Viewer } from './console-viewer.js';

export interface LayoutProps {
  readonly title: string;
  readonly viewer: Viewer | null;
  /** `?v=` of the asset URLs, so a new build is fetched at once. */
  readonly assetVersion: string;
  /** Seconds between refreshes of the page's live parts; absent on pages with none. */
  readonly refreshSeconds?: number;
  /** When the page's figures were read (epoch ms): the start of "updated N s ago". */
  readonly renderedAt: number;
  readonly children?: Child;
}

/**
 * The frame of every page: the asset links (a script and a stylesheet from
 * this server; the Content-Security-Policy allows nothing inline), the
 * navigation, who is signed in, and sign-out for pasted-token sessions;
 * the time zone times are shown in; and on pages whose figures refresh, how
 * fresh they are, the refresh rate (or paused), and the banner that says
 * when they stopped refreshing and why. A skip link leads past the header
 * to the page's own content; a polite live region (#announce) tells a
 * screen reader what changed when it matters (figures late or stale, the
 * queues' summary), never the ticking freshness.
 */
export function Layout(props: LayoutProps) {
  const { viewer } = props;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${props.title} - taskqueue console`}</title>
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href={`/console/assets/console.css?v=${props.assetVersion}`} />
        <script src={`/console/assets/console.js?v=${props.assetVersion}`} defer></script>
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to main content
        </a>
        <header class="top">
          <a class="brand" href="/console">
            taskqueue
          </a>
          {viewer && (
            <nav>
              <a href="/console">Queues</a>
              <a href="/console/audit">Audit log</a>
              <a href="/console/cron">Cron jobs</a>
            </nav>
          )}
          {viewer && (
            <div class="who">
              {viewer.via === 'open' ? (
                <span class="warning">access control is off</span>
              ) : (
                <span data-testid="viewer">{viewer.email ?? 'signed in'}</span>
              )}
              {viewer.admin ? <span class="badge admin">administrator</span> : <span class="badge">read only</span>}
              {viewer.via === 'session' && (
                <form method="post" action="/console/sign-out" class="inline">
                  <input type="hidden" name="_csrf" value={viewer.csrf} />
                  <button type="submit" class="link">
                    Sign out
                  </button>
                </form>
              )}
            </div>
          )}
        </header>
        {viewer && (
          <div class="status-bar">
            <label class="zone">
              Times in{' '}
              <select id="time-zone" aria-label="Time zone">
                <option value="UTC">UTC</option>
                <option value="local">local time</option>
              </select>
            </label>
            {props.refreshSeconds !== undefined && (
              <>
                {/* Not a live region: it changes every second. #announce says what matters, once. */}
                <span id="freshness" class="fresh" data-rendered-at={String(props.renderedAt)}>
                  updated just now
                </span>
                <label class="refresh" hidden>
                  Refresh{' '}
                  <select id="refresh-rate" data-default={String(props.refreshSeconds)} aria-label="Refresh rate">
                    {[...new Set([props.refreshSeconds, 2, 5, 15, 60])]
                      .sort((a, b) => a - b)
                      .map((s) => (
                        <option value={String(s)} selected={s === props.refreshSeconds}>{`every ${s} s`}</option>
                      ))}
                    <option value="0">paused</option>
                  </select>
                </label>
              </>
            )}
          </div>
        )}
        <div id="banner" class="banner" role="alert" hidden></div>
        <div id="announce" class="visually-hidden" role="status" aria-live="polite"></div>
        <main
          id="main"
          tabindex={-1}
          data-refresh-ms={props.refreshSeconds === undefined ? undefined : String(props.refreshSeconds * 1000)}
        >
          {props.children}
        </main>
      </body>
    </html>
  );
}
