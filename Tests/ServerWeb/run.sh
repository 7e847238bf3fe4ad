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
# The fuzzer and the browser walk serve their own hosts (each a fresh data folder and port), so they run side by side:
# the walk spends much of its time waiting on the page, the fuzzer on its requests. Each one's output is printed whole
# when both have ended; either failing fails the run.
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
python3 fuzz_api.py > "$out/fuzz" 2>&1 & fuzzing=$!
python3 browser_test.py > "$out/browser" 2>&1 & walking=$!
fuzzed=0; wait $fuzzing || fuzzed=$?
walked=0; wait $walking || walked=$?
echo "=== the API fuzzer (fuzz_api.py): exit $fuzzed"; cat "$out/fuzz"
echo "=== the browser walk (browser_test.py): exit $walked"; cat "$out/browser"
[ $fuzzed -eq 0 ] && [ $walked -eq 0 ]
