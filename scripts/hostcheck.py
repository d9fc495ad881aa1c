# SPDX-License-Identifier: GPL-2.0
"""What the host checks of guest files share: PASS/FAIL result lines."""


class Results:
    """Result lines, printed and appended to a results file at the end."""

    def __init__(self):
        self.lines = []

    def record(self, ok, what, why=''):
        self.lines.append('%s\t%s%s' % ('PASS' if ok else 'FAIL', what,
                                        '' if ok or not why else ': ' + why))

    def write(self, path):
        with open(path, 'a') as f:
            for line in self.lines:
                print(line)
                f.write(line + '\n')
