"""What mrkdwn and Markdown look like: how each dialect writes bold, strike and links."""

from __future__ import annotations

import re

from app.verify.verdict import Dialect

_BARE_AMP = re.compile(r"&(?!(?:amp|lt|gt);)")
_URL_UNSAFE = {" ": "%20", "|": "%7C", "<": "%3C", ">": "%3E", "(": "%28", ")": "%29"}


def escape_mrkdwn(text: str) -> str:
    """Escape &, < and > for mrkdwn, leaving existing &amp; &lt; &gt; as they are."""
    return _BARE_AMP.sub("&amp;", text).replace("<", "&lt;").replace(">", "&gt;")


def unescape_mrkdwn(text: str) -> str:
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def bold(text: str, dialect: Dialect) -> str:
    return f"*{text}*" if dialect == "mrkdwn" else f"**{text}**"


def strike(text: str, dialect: Dialect) -> str:
    return f"~{text}~" if dialect == "mrkdwn" else f"~~{text}~~"


def link(url: str, label: str, dialect: Dialect) -> str:
    """A link to `url` labelled `label`, written for `dialect`."""
    url = unescape_mrkdwn(url.strip())
    label = unescape_mrkdwn(label.strip())
    if dialect == "mrkdwn":
        safe_url = escape_mrkdwn(_encode(url, "| <>"))
        return f"<{safe_url}|{escape_mrkdwn(label)}>" if label else f"<{safe_url}>"
    safe_url = _encode(url, " ()" if _unbalanced(url) else " ")
    label = label.replace("[", "\\[").replace("]", "\\]")
    return f"[{label or url}]({safe_url})"


def _encode(url: str, unsafe: str) -> str:
    return "".join(_URL_UNSAFE[ch] if ch in unsafe else ch for ch in url)


def _unbalanced(url: str) -> bool:
    depth = 0
    for ch in url:
        depth += 1 if ch == "(" else -1 if ch == ")" else 0
        if depth < 0:
            return True
    return depth != 0
