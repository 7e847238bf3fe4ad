#!/bin/sh
# The server's tests outside Swift: the API fuzzer (schemathesis against the served OpenAPI document) and the web
# client in a real browser (Debian's chromium + chromium-driver, selenium, axe-core from axe-selenium-python). Installs
# what is missing first.
set -eu
cd "$(dirname "$0")"
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
    echo "installing chromium and chromium-driver (Debian)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
fi
python3 -c "import selenium, schemathesis, axe_selenium_python" 2>/dev/null || pip install -q selenium schemathesis axe-selenium-python==2.1.6
python3 fuzz_api.py
python3 browser_test.py
