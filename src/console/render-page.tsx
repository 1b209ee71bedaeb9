import type { Context } from 'hono';
import type { Child } from 'hono/jsx';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { consoleAssets } from './console-assets.js';
import type { Viewer } from './console-viewer.js';
import { Layout } from './layout.js';

/** Sends a whole page: the layout around `body`, as HTML with a doctype. */
export async function renderPage(
  c: Context,
  page: {
    readonly title: string;
    readonly viewer: Viewer | null;
    readonly body: Child;
    readonly refreshSeconds?: number;
  },
  status: ContentfulStatusCode = 200,
): Promise<Response> {
  const assets = await consoleAssets();
  const element = (
    <Layout
      title={page.title}
      viewer={page.viewer}
      assetVersion={assets.version}
      renderedAt={Date.now()}
      {...(page.refreshSeconds === undefined ? {} : { refreshSeconds: page.refreshSeconds })}
    >
      {page.body}
    </Layout>
  );
  return c.html(`<!doctype html>${String(await element)}`, status);
}

/** Sends a fragment of a page (the client script swaps it in). */
export async function renderFragment(c: Context, body: Child): Promise<Response> {
  return c.html(String(await (<>{body}</>)));
}
