import type { Child } from 'hono/jsx';
import type { Viewer } from './console-viewer.js';

export interface LayoutProps {
  readonly title: string;
  readonly viewer: Viewer | null;
  /** `?v=` of the asset URLs, so a new build is fetched at once. */
  readonly assetVersion: string;
  readonly children?: Child;
}

/**
 * The frame of every page: the asset links (a script and a stylesheet from
 * this server; the Content-Security-Policy allows nothing inline), the
 * navigation, who is signed in, and sign-out for pasted-token sessions.
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
        <header class="top">
          <a class="brand" href="/console">
            taskqueue
          </a>
          {viewer && (
            <nav>
              <a href="/console">Queues</a>
              <a href="/console/audit">Audit log</a>
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
        <main>{props.children}</main>
      </body>
    </html>
  );
}
