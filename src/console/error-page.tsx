/** A refusal or failure, said plainly. */
export function ErrorPage(props: { readonly title: string; readonly message: string; readonly back?: string }) {
  return (
    <section>
      <h1>{props.title}</h1>
      <p class="error" role="alert">
        {props.message}
      </p>
      {props.back && <a href={props.back}>Back</a>}
    </section>
  );
}
