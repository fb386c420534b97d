"""`tnforge docs`: build the documentation site for offline reading, or serve it (`tnforge.docsite`)."""
import click


@click.command(epilog="\b\nExamples:\n  tnforge docs\n  tnforge docs --serve\n  tnforge docs --serve 0.0.0.0:8080")
@click.option("--out", type=click.Path(file_okay=False), help="Site folder (default: CHECKOUT/site).")
@click.option("--serve", is_flag=False, flag_value="127.0.0.1:8000", metavar="[HOST:PORT]",
              help="Serve the site instead, rebuilt on every change (mkdocs serve; default 127.0.0.1:8000).")
def docs(out: str | None, serve: str | None) -> None:
    """Build the documentation site from the checkout's docs/ and print where its index page is (a file://
    link: nothing is fetched from the network). --serve adds search and live reload on a local address."""
    from tnforge.docsite import build_site, find_checkout, serve_site

    if serve:
        raise SystemExit(serve_site(find_checkout(), serve))
    click.echo(f"Documentation: {build_site(find_checkout(), out).resolve().as_uri()}")
