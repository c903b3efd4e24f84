"""A script model whose every answer is built to break an HTML page: markup,
a closing script tag, an event handler, a comment opener and the line and
paragraph separators around a program that does solve the stdin/stdout problem
(read two integers, print their sum)."""

HOSTILE = (
    "</script><script>document.title='PWNED-SCRIPT'</script>"
    "<img src=x onerror=\"document.title='PWNED-IMG'\"> <!-- \u2028\u2029 <svg onload=alert(1)> &amp; \x1b[2J"
)


def respond(request):
    program = (
        "import sys\n\n# " + HOSTILE.replace("\n", " ") + "\na, b = map(int, sys.stdin.read().split())\nprint(a + b)\n"
    )
    return HOSTILE + "\n\n```python\n" + program + "```\n" + HOSTILE
