#!/bin/sh
# What the test suites need beyond the build, installed in one go: `make test` starts this in the background while
# Swift compiles (downloads and unpacking wait on the network and the disk, the compiler on the cores), and waits for
# it before the first suite. Each missing program or module is named; a failed install says what to install by hand
# and exits 1, so `make test` stops instead of running suites that would skip or fail for a missing tool.
#
#   libxml2-dev                       the build: rbs-host's static Foundation links libxml2 (make test's build waits
#                                     for this script before it links again if its first link lacked it)
#   zbar-tools                        payment QR pictures: rbs-host reads them with zbarimg
#   poppler-utils, fonts-dejavu-core  receipts: the PDF embeds DejaVu Sans, the tests read it with pdftotext/pdftoppm
#   qrencode                          payment QR codes: the tests draw pictures with it (rbs-host reads them with zbarimg)
#   chromium, chromium-driver         the web client in a real browser (Tests/ServerWeb/browser_test.py)
#   pexpect, pyte                     the REPL's screen tests (a pseudo-terminal rendered by pyte)
#   selenium, schemathesis, axe-selenium-python  the API fuzzer and the browser walk with axe-core's checks
#   cryptography                      the concurrent-hosts test signs as a customer's passkey would
set -u

packages=""
ldconfig -p | grep -q 'libxml2\.so ' || packages="$packages libxml2-dev"
command -v zbarimg >/dev/null || packages="$packages zbar-tools"
command -v pdftoppm >/dev/null && command -v pdftotext >/dev/null || packages="$packages poppler-utils"
test -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf || packages="$packages fonts-dejavu-core"
command -v qrencode >/dev/null || packages="$packages qrencode"
command -v chromium >/dev/null || packages="$packages chromium"
command -v chromedriver >/dev/null || packages="$packages chromium-driver"
if [ -n "$packages" ]; then
    echo "test prerequisites: installing$packages (Debian)"
    if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $packages >/dev/null; }; then
        echo "test prerequisites: cannot install$packages (apt-get install$packages)"
        exit 1
    fi
fi

modules=""
python3 -c 'import pexpect' 2>/dev/null || modules="$modules pexpect"
python3 -c 'import pyte' 2>/dev/null || modules="$modules pyte"
python3 -c 'import selenium' 2>/dev/null || modules="$modules selenium"
python3 -c 'import schemathesis' 2>/dev/null || modules="$modules schemathesis"
python3 -c 'import axe_selenium_python' 2>/dev/null || modules="$modules axe-selenium-python==2.1.6"
python3 -c 'import cryptography' 2>/dev/null || modules="$modules cryptography"
if [ -n "$modules" ]; then
    echo "test prerequisites: installing$modules (PyPI)"
    if ! python3 -m pip install --quiet $modules; then
        echo "test prerequisites: cannot install$modules (python3 -m pip install$modules)"
        exit 1
    fi
fi
echo "test prerequisites: all present"
