"""Data Docs that read offline: GX's pages with their CDN styles, scripts and images replaced by inline CSS,
plus a tnforge index page listing every check with a link to its frame's page.
"""

from __future__ import annotations

from pathlib import Path

from tnforge.validation.report import ValidationReport

#: A small stand-in for the Bootstrap and Font Awesome styles GX's pages load from CDNs.
OFFLINE_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;font-size:14px;
 color:#212529;background:#fff;margin:0;line-height:1.45}
a{color:#0b63c5;text-decoration:none} a:hover{text-decoration:underline}
.container,.container-fluid{width:100%;box-sizing:border-box;padding:0 12px;margin:0 auto}
.row{display:flex;flex-wrap:wrap;margin:0 -8px} .row>*{box-sizing:border-box;padding:0 8px}
.col-12,.col-xs-12{flex:0 0 100%;max-width:100%}
@media(min-width:768px){.col-md-2{flex:0 0 16.66%;max-width:16.66%}.col-md-10{flex:0 0 83.33%;max-width:83.33%}
 .col-md-6{flex:0 0 50%;max-width:50%}.col-md-4{flex:0 0 33.33%;max-width:33.33%}
 .col-md-8{flex:0 0 66.66%;max-width:66.66%}.col-md-3{flex:0 0 25%;max-width:25%}
 .col-md-9{flex:0 0 75%;max-width:75%}.d-md-block{display:block!important}}
.d-none{display:none} .d-flex{display:flex} .sticky-top{position:sticky;top:0}
.navbar{display:flex;align-items:center;padding:8px 12px;border-bottom:1px solid #dee2e6;background:#f8f9fa}
.nav{list-style:none;padding-left:0;margin:0} .nav-link{display:block;padding:3px 6px}
.breadcrumb{display:flex;list-style:none;padding:6px 0;margin:0;gap:6px}
.breadcrumb-item+.breadcrumb-item::before{content:"/ ";color:#6c757d}
.card{border:1px solid #dee2e6;border-radius:6px;margin:10px 0;background:#fff}
.card-header{padding:8px 12px;background:#f1f3f5;border-bottom:1px solid #dee2e6;font-weight:600}
.card-body{padding:8px 12px}
.table{width:100%;border-collapse:collapse;margin:6px 0} .table td,.table th{border:1px solid #dee2e6;
 padding:4px 8px;vertical-align:top;text-align:left} .table th{background:#f8f9fa}
.table-responsive{overflow-x:auto}
.badge{display:inline-block;padding:1px 6px;border-radius:4px;background:#e9ecef;font-size:12px}
.alert{padding:6px 10px;border-radius:4px;background:#f1f3f5;margin:4px 0}
.btn{display:inline-block;padding:3px 8px;border:1px solid #ced4da;border-radius:4px;background:#f8f9fa}
.text-success{color:#198754} .text-danger{color:#c62828} .text-muted{color:#6c757d}
.bg-light{background:#f8f9fa} .h6{font-size:14px;font-weight:600}
.fas,.fa{font-style:normal;font-weight:700} .fa-check-circle::before{content:"\\2714"}
.fa-times::before{content:"\\2718"} .fa-exclamation-triangle::before{content:"\\26A0"}
.fa-question-circle::before{content:"?"} .fa-comment::before{content:"\\1F4AC"}
.collapse{display:block} code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}
table.tn td.fail{color:#c62828;font-weight:600} table.tn td.pass{color:#198754}
table.tn td.info{color:#6c757d}
"""

_REMOTE_LINK = r"<link\b[^>]*href=[\"']https?://[^>]*>"
_SCRIPT = r"<script\b[^>]*>.*?</script>"
_REMOTE_IMG = r"<img\b[^>]*src=[\"']https?://[^>]*>"
_OFFLINE_MARK = "<!-- tnforge: offline -->"
_REMOTE_HREF = r"\shref=[\"']https?://[^\"']*[\"']"


def make_offline(html: str) -> str:
    """Strip every stylesheet, script and image GX loads from the web and inline `OFFLINE_CSS` instead."""
    import re

    if _OFFLINE_MARK in html:
        return html
    html = re.sub(_SCRIPT, "", html, flags=re.S | re.I)
    html = re.sub(_REMOTE_LINK, "", html, flags=re.I)
    html = re.sub(_REMOTE_IMG, "", html, flags=re.S | re.I)
    html = re.sub(_REMOTE_HREF, "", html, flags=re.I)
    style = f"{_OFFLINE_MARK}<style>{OFFLINE_CSS}</style>"
    return html.replace("</head>", style + "</head>", 1) if "</head>" in html else style + html


def external_references(html: str) -> list[str]:
    """http(s) URLs still referenced by a page (there should be none once it is offline)."""
    import re

    return re.findall(r"(?:href|src)=[\"'](https?://[^\"']+)", html, flags=re.I)


def finish_docs(docs: Path, report: ValidationReport) -> Path:
    """Make every GX page offline-readable and write a tnforge index page linking them; returns the index."""
    pages: dict[str, str] = {}
    for path in sorted(docs.rglob("*.html")):  # run folders are timestamps: the latest run comes last
        path.write_text(make_offline(path.read_text(encoding="utf-8")), encoding="utf-8")
        relative = path.relative_to(docs).as_posix()
        if relative.startswith("validations/"):
            suite = ".".join(relative.split("/")[1:-3])
            pages[suite] = relative
    index = docs / "index.html"
    index.write_text(_index_html(report, pages), encoding="utf-8")
    return index


def _index_html(report: ValidationReport, pages: dict[str, str]) -> str:
    from html import escape

    status = "passed" if report.success else "FAILED"
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'><title>tnforge validation</title>",
        f"<style>{OFFLINE_CSS}</style></head><body><div class='container'>",
        f"<h1>tnforge validation: {escape(str(report.root))}</h1>",
        f"<p><b class='{'text-success' if report.success else 'text-danger'}'>{status}</b>"
        f" · {sum(r.passed for r in report.results.values())} expectations passed,"
        f" {sum(r.failed for r in report.results.values())} failed · {report.seconds:.1f} s</p>",
    ]
    for note in report.notes:
        parts.append(f"<div class='alert'>{escape(note)}</div>")
    for name, result in report.results.items():
        parts.append(f"<div class='card'><div class='card-header'>{escape(name)} · {result.rows:,} rows · "
                     f"{result.passed} passed, {result.failed} failed</div><div class='card-body'>")
        parts.append("<table class='table tn'><tr><th>status</th><th>check</th><th>frame</th>"
                     "<th>expectation</th><th>observed</th></tr>")
        for check in result.checks:
            kind = "fail" if not check.success else "info" if check.informational else "pass"
            label = {"fail": "✘ failed", "info": "ⓘ reported", "pass": "✔ passed"}[kind]
            frame = escape(check.frame)
            if check.frame in pages:
                frame = f"<a href='{escape(pages[check.frame])}'>{frame}</a>"
            parts.append(f"<tr><td class='{kind}'>{label}</td><td>{escape(check.description)}</td><td>{frame}</td>"
                         f"<td><code>{escape(check.expectation)}</code></td><td><code>{escape(check.observed)}"
                         f"</code></td></tr>")
        parts.append("</table></div></div>")
    parts.append("<p class='text-muted'>Rendered by tnforge from Great Expectations validation results; "
                 "the per-frame pages are GX Data Docs made readable offline.</p></div></body></html>")
    return "\n".join(parts)
