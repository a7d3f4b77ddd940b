"""Hostile strings, as a bot's author or a bot would write them, for the escaping tests."""

ALERT_SCRIPT = "<script>alert(1)</script>"
ALERT_IMG = '"><img src=x onerror=alert(1)>'
SCRIPT = "<script>window.__pwned=1</script>"
"""Sets window.__pwned if a page runs it."""
IMG = '"><img src=x onerror=window.__pwned=1>'
"""Sets window.__pwned if a page makes an element of it (the image fails to load)."""
OSC_TITLE = "\x1b]0;pwned\x07"
"""Retitles a terminal window (OSC 0)."""
CLEAR = "\x1b[2J"
"""Clears a terminal (CSI 2J)."""
CSI_C1 = "\x9b31m"
"""A CSI written as the one C1 character 0x9b."""
HYPERLINK = '=HYPERLINK("http://x")'
CMD = "+cmd|' /C calc'!A0"
SUM = "@SUM(1+1)"
MINUS = "-2+3"
FORMULAS = (HYPERLINK, CMD, SUM, MINUS, "\tx", "\rx")
MARKDOWN = "a|b`c`*d*_e_[f](g)~h~#i\nj\\k"
