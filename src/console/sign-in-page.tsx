/**
 * The sign-in form: paste a bearer token that REST would accept (for
 * example one from `taskqueue token`). The token goes into an HttpOnly
 * cookie and is verified again on every request.
 */
export function SignInPage(props: { readonly message: string | null; readonly next: string }) {
  return (
    <section class="sign-in">
      <h1>Sign in</h1>
      <p>
        Paste a bearer token the REST API accepts. Administrators can act on queues; everyone else sees the queues their
        ACLs let them read.
      </p>
      {props.message && (
        <p class="error" role="alert" id="sign-in-reason">
          {props.message}
        </p>
      )}
      <form method="post" action="/console/sign-in">
        <input type="hidden" name="next" value={props.next} />
        <label for="token">Bearer token</label>
        <textarea id="token" name="token" rows={4} autocomplete="off" spellcheck={false} required></textarea>
        <button type="submit">Sign in</button>
      </form>
    </section>
  );
}
