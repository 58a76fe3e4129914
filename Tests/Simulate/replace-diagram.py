#!/usr/bin/env python3
"""Puts the state diagram the simulator drew (argv[2]) into a document (argv[1]), between
the lines `<!-- state diagram: drawn by make diagram -->` and `<!-- end of state diagram -->`."""
import sys

document, diagram = sys.argv[1], open(sys.argv[2]).read().strip()
text = open(document).read()
begin, end = "<!-- state diagram: drawn by make diagram -->", "<!-- end of state diagram -->"
if begin not in text or end not in text:
    sys.exit("%s: no %s ... %s markers" % (document, begin, end))
head, rest = text.split(begin, 1)
_, tail = rest.split(end, 1)
open(document, "w").write(head + begin + "\n" + diagram + "\n" + end + tail)
