# rbs-host — the two commands of the README:
#   make run    builds the host and the example plugins, then starts the REPL with them loaded
#   make serve  builds the host and the example plugins, then serves them (rbs-host serve) with a demo customer
#   make test   builds everything and runs the whole test suite
SWIFT ?= swift
# The debug build's flags, the same for `make build` and `make test` (another set of flags rebuilds everything): each
# module compiled whole (-wmo: one frontend per module instead of a batch per core, each of which parses and type-checks
# the declarations of the whole module again; -num-threads makes it write an object and an index unit per source file,
# as SwiftPM's link and its test discovery, which reads the index store, expect — without it both fail), and neither
# Swift nor C/C++ with debug information (BoringSSL twice, ~770 C++ files; the test bundle and rbs-host, each over
# 200 MB with it, link faster without). Measured on a fresh build of NIOPosix and what it needs: 126 CPU-s with
# SwiftPM's defaults, 89 with -wmo and -g0, 97 → 110 on another day's machine without and with Swift's debug information
# (-gnone); RBSLedger and what it needs 606 → 653 CPU-s. A clean clone's whole debug build took 743 s where it took
# 923 s. A crash's backtrace still names its functions (the symbols stay), not its source lines; for a debugger, build
# with SWIFT_DEBUG_FLAGS= (SwiftPM's defaults). `swift build` without them works as ever, in the same folder, at the
# price of a full rebuild each time the flags change.
SWIFT_DEBUG_FLAGS ?= -Xswiftc -wmo -Xswiftc -num-threads -Xswiftc 2 -Xswiftc -gnone -Xcc -g0
# Every build here without colour: SwiftPM passes the compiler -color-diagnostics only when its output is a terminal,
# and a changed command rebuilds every module, so `make test` piped (CI, `| tee`) and `make run` in a terminal rebuilt
# each other's host (272 s measured after a piped make test) and the Swift example plugins.
SWIFT_BUILD = $(SWIFT) build --no-color-diagnostics
# The debug build (make build, run, serve, test and what they call, sub-makes included) leaves the benchmark executable
# out of the package (Package.swift): no suite runs it. Every debug target sees the same package — with these flags a
# package with other targets rebuilds every module, so `make run` after `make test` rebuilt the host (263 s) when only
# the tests left it out. The bench targets' builds in .build-release set it empty and get rbs-bench.
export RBS_NO_BENCH := 1
CC ?= cc
CFLAGS ?= -std=c11 -O2 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden
INCLUDE := SDK/Sources/CRBSPlugin/include
HEADERS := $(wildcard $(INCLUDE)/*.h $(INCLUDE)/rbs/*.h $(INCLUDE)/rbs/ext/*.h)
PLUGINS := Plugins

C_PLUGINS := $(PLUGINS)/transfer-own.so
SWIFT_PLUGINS := $(PLUGINS)/pay-quick.so $(PLUGINS)/pay-tax.so
RUST_PLUGINS := $(PLUGINS)/card-block.so
CARGO ?= cargo
HOST := .build/debug/rbs-host
# Development signing: a publisher key made on first use and a data folder that trusts it (both gitignored).
DEV := .rbs-dev
DEV_KEY := $(DEV)/publisher.key
DEV_DATA := $(DEV)/data

# The demo customer of `make serve` (in the development data folder).
DEMO_CUSTOMER := demo
DEMO_PASSWORD := demo-password

.PHONY: run serve web-test parity bench-serve build build-prerequisites plugins c-plugins swift-plugins rust-plugins sign-plugins test-fixtures test test-suites test-suites-beside rollout-test bench bench-pg fuzz fuzz-build clean

# The REPL runs with the development data folder, where the development key is trusted: the real trust path.
run: build plugins
	RBS_HOME=$(DEV_DATA) $(HOST) $(ARGS)

# The same plugins served over HTTP (http://127.0.0.1:8080 unless ARGS="--listen HOST:PORT"), with a demo customer.
serve: build plugins
	@RBS_HOME=$(DEV_DATA) $(HOST) customers list | grep -q '^$(DEMO_CUSTOMER) ' || \
		echo '$(DEMO_PASSWORD)' | RBS_HOME=$(DEV_DATA) $(HOST) customers add $(DEMO_CUSTOMER) --password-stdin
	@# The demo customer's cards (test numbers): a Visa and a Mir, issued once.
	@RBS_HOME=$(DEV_DATA) $(HOST) customers cards $(DEMO_CUSTOMER) | grep -q '4111 11' || \
		{ RBS_HOME=$(DEV_DATA) $(HOST) customers add-card $(DEMO_CUSTOMER) --number 4111111111111111 && \
		  RBS_HOME=$(DEV_DATA) $(HOST) customers add-card $(DEMO_CUSTOMER) --number 2200000000000004; }
	@echo "open http://localhost:8080 and log in as $(DEMO_CUSTOMER) / $(DEMO_PASSWORD); one-time code: RBS_HOME=$(DEV_DATA) $(HOST) customers code $(DEMO_CUSTOMER)"
	RBS_HOME=$(DEV_DATA) $(HOST) serve $(ARGS)

# rbs-host links the static Foundation, whose FoundationXML needs the system's libxml2 (libxml2-dev: libxml2.so).
build: build-prerequisites
	$(SWIFT_BUILD) $(SWIFT_DEBUG_FLAGS) --product rbs-host

build-prerequisites:
	@ldconfig -p | grep -q 'libxml2\.so ' || { echo "installing libxml2-dev (Debian): rbs-host's static Foundation links libxml2"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libxml2-dev >/dev/null; } || \
		{ echo "make build: cannot install libxml2-dev (apt-get install libxml2-dev)"; exit 1; }
	@command -v zbarimg >/dev/null || { echo "installing zbar-tools (Debian): rbs-host reads payment QR pictures with zbarimg (run --qr-image, POST /api/v1/qr)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq zbar-tools >/dev/null; } || \
		echo "make build: zbar-tools not installed; rbs-host runs without it, only QR pictures cannot be read (apt-get install zbar-tools)"

plugins: c-plugins swift-plugins rust-plugins sign-plugins

# Signs every plugin in Plugins/ with the development key (writes Plugins/*.so.sig) and trusts that key in $(DEV_DATA).
sign-plugins: c-plugins swift-plugins rust-plugins | build
	@test -f $(DEV_KEY) || { mkdir -p $(DEV) && chmod 700 $(DEV) && $(HOST) plugin keygen $(DEV_KEY) --name rbs-host-development; }
	@RBS_HOME=$(DEV_DATA) $(HOST) trust add $(DEV_KEY).pub >/dev/null
	@# The development folder's first start (its ledger and a signing key; `keys code` in the REPL gives the code).
	@test -f $(DEV_DATA)/signing.key || RBS_HOME=$(DEV_DATA) $(HOST) keys init --name developer >/dev/null
	@for plugin in $(PLUGINS)/*.so; do $(HOST) plugin sign $$plugin --key $(DEV_KEY) >/dev/null || exit 1; done
	@echo "signed $(PLUGINS)/*.so with $(DEV_KEY) (trusted in $(DEV_DATA))"

c-plugins: $(C_PLUGINS)

$(PLUGINS)/transfer-own.so: Examples/c/transfer-own/transfer_own.c $(HEADERS)
	$(CC) $(CFLAGS) -I$(INCLUDE) -o $@ $<

# Swift plugins: a separate package (Examples/swift) that depends on the SDK package (SDK/) alone, built on its own,
# never linked to the host.
swift-plugins:
	cd Examples/swift && $(SWIFT_BUILD) -c release
	cp Examples/swift/.build/release/libPayQuick.so $(PLUGINS)/pay-quick.so
	cp Examples/swift/.build/release/libPayTax.so $(PLUGINS)/pay-tax.so

# Rust plugins: a cargo package per plugin, no crates from a registry (--offline); the ABI binding is the path crate
# SDK/rust/rbs-plugin-abi.
rust-plugins:
	$(CARGO) build --release --offline --manifest-path Examples/rust/card-block/Cargo.toml
	cp Examples/rust/card-block/target/release/libcard_block.so $(PLUGINS)/card-block.so

# A test fixture built with cargo (SDKParityTests): built beside the host by `make test`, in the folder the suite
# looks in (cargo there only finds it current), so the suite's own run does not compile it.
test-fixtures:
	$(CARGO) build --release --offline --manifest-path Tests/Fixtures/rust-extensions/Cargo.toml \
		--target-dir .build/test-fixtures/rust-extensions

# The server's suites run on their own: in one process with the rest, the synchronous tests that wait for child
# processes occupy Swift's cooperative thread pool (as wide as the cores), which the HTTP server under test needs.
# SWIFT_BACKTRACE=enable=no: a child the tests crash on purpose (the scan corpus) is not held open by Swift's
# backtracer, which on a loaded machine can hang for many minutes with the child's pipes (as plugin check's children).
# The suites' own prerequisites (Scripts/test-prerequisites.sh: a browser, poppler, qrencode, zbar, Python modules)
# install in the background while Swift compiles, and the example plugins (their own packages) and the Rust test
# fixture build beside the host and its tests (the host's build leaves cores idle while it plans and links). The build's own prerequisite (libxml2,
# which rbs-host's static Foundation links) is in that background install too: the first link comes minutes after the
# start, long after apt is done; should a link still find it missing, the build waits for the install and links again
# (incrementally). The plugins are signed once the host is built and the install is done (signing goes through
# `make build`, whose prerequisites are then present). The suites start once all is done, not at all if anything failed.
# The suites' temporary files (data folders, keys, databases' folders, browsers' profiles: ~150 MB a run) go to one
# folder of their own (TMPDIR, honoured by Foundation, Python's tempfile, mktemp and Chromium), mode 1777 as /tmp so
# the postgres user reaches the failover pairs' folders, and short enough for a server's socket path inside it (107
# bytes); removed when the suites pass, kept (and named) when they fail. Before, every run left them all in /tmp.
# The debug hosts the suites start hash passwords with scrypt's N = 2^10 instead of 2^14 (PasswordRecord.standardRounds;
# debug builds only): each customer added and each login cost ~0.5 s of CPU with BoringSSL unoptimised.
test: export RBS_TEST_PASSWORD_ROUNDS := 1024
test:
	@date -u '+=== %T make test: the build (the host and its tests, the example plugins, the test prerequisites)'
	@ldconfig -p | grep -q 'libxml2\.so '; had_libxml2=$$?; \
		Scripts/test-prerequisites.sh > .build-test-prerequisites.log 2>&1 & installing=$$!; \
		$(MAKE) --no-print-directory c-plugins swift-plugins rust-plugins test-fixtures > .build-example-plugins.log 2>&1 & examples=$$!; \
		$(SWIFT_BUILD) $(SWIFT_DEBUG_FLAGS) --build-tests; built=$$?; installed=""; \
		if [ $$built -ne 0 ] && [ $$had_libxml2 -ne 0 ]; then \
			echo "make test: the build failed while libxml2 was being installed; once it is, building again"; \
			wait $$installing; installed=$$?; $(SWIFT_BUILD) $(SWIFT_DEBUG_FLAGS) --build-tests; built=$$?; fi; \
		wait $$examples; examples=$$?; cat .build-example-plugins.log; \
		[ -n "$$installed" ] || { wait $$installing; installed=$$?; }; cat .build-test-prerequisites.log; \
		[ $$examples -ne 0 ] || [ $$built -ne 0 ] || $(MAKE) --no-print-directory sign-plugins; signed=$$?; \
		[ $$built -eq 0 ] || exit $$built; \
		[ $$examples -eq 0 ] || { echo "make test: the example plugins did not build (above)"; exit 1; }; \
		[ $$signed -eq 0 ] || exit $$signed; \
		[ $$installed -eq 0 ] || { echo "make test: the test prerequisites are missing (above)"; exit 1; }
	@date -u '+=== %T make test: the suites'
	@tmp=$$(mktemp -d /tmp/rbs-test.XXXXXX) && chmod 1777 "$$tmp" || exit 1; \
		echo "make test: the suites' temporary files go to $$tmp (TMPDIR), removed when they pass"; \
		TMPDIR=$$tmp Tests/Postgres/cluster.sh run $(MAKE) --no-print-directory test-suites; passed=$$?; \
		if [ $$passed -eq 0 ]; then rm -rf "$$tmp" 2>/dev/null || echo "make test: could not remove all of $$tmp"; \
		else echo "make test: the suites failed; their temporary files are kept in $$tmp"; fi; \
		exit $$passed
	@date -u '+=== %T make test: done'

# The suites, inside Tests/Postgres/cluster.sh run: a throw-away PostgreSQL cluster whose address is in
# RBS_TEST_POSTGRES (unset, with a SKIPPED line, where PostgreSQL cannot be installed). The ledger's suite runs twice:
# on SQLite, then on PostgreSQL (RBS_TEST_LEDGER_ENGINE=postgres: every fixture's ledger in a fresh database).
# The concurrent-hosts test runs 55 seconds here (its faults: 5 SIGKILLs and a PostgreSQL restart, each at its share of
# the documents or of the time): enough documents to race on every balance, and signing baskets of 20 (of 50, none
# completed in 55 s under the faults; the test now fails when no basket was signed); throughput is `make bench-pg`'s
# to measure. Its failover case (25 s, single payments only: a basket does not complete between its faults) runs the
# bank on a primary with a synchronous standby, crashes the primary and promotes.
# (RBSLedgerTests' PostgresFailoverTests does the same to one ledger in the first swift test below, ~20 s: its own pair.)
test-suites:
	SWIFT_BACKTRACE=enable=no $(SWIFT) test --skip-build --skip RBSServerTests
	@date -u '+=== %T the concurrent-hosts cases'
	@if [ -n "$$RBS_TEST_POSTGRES" ]; then \
		python3 Tests/Postgres/concurrent_hosts.py --documents 650 --minimum 350 --seconds 55 --basket-size 20 && \
		python3 Tests/Postgres/concurrent_hosts.py --failover --documents 250 --minimum 80 --seconds 25 --basket-customers 0; \
	else echo "*** SKIPPED: three serve hosts on one PostgreSQL and their failover (Tests/Postgres/concurrent_hosts.py): no PostgreSQL server ***"; fi
	@# The web tests (the API fuzzer, the browser walk) wait on pages and requests much of their time: beside them run
	@# the ledger's suite on PostgreSQL then the server's suites, the parity corpus (which waits on the hosts it
	@# starts) and the staged rollout (which waits on two hosts' syncs); each serves its own hosts on its own ports,
	@# data folders and databases. Their outputs are printed whole at the end.
	@date -u '+=== %T the web tests, beside them the ledger on PostgreSQL, the server, parity and the rollout'
	@{ $(MAKE) --no-print-directory test-suites-beside; r=$$?; date -u '+=== %T finished'; exit $$r; } > .build-suites-beside.log 2>&1 & beside=$$!; \
		{ $(MAKE) --no-print-directory parity; r=$$?; date -u '+=== %T finished'; exit $$r; } > .build-parity.log 2>&1 & checking=$$!; \
		{ $(MAKE) --no-print-directory rollout-test; r=$$?; date -u '+=== %T finished'; exit $$r; } > .build-rollout.log 2>&1 & rolling=$$!; \
		$(MAKE) --no-print-directory web-test; web=$$?; date -u '+=== %T the web tests finished'; \
		wait $$beside; passed=$$?; echo "=== $$(date -u +%T) the ledger's suite on PostgreSQL and the server's suites: exit $$passed"; \
		cat .build-suites-beside.log; \
		wait $$checking; checked=$$?; echo "=== $$(date -u +%T) the parity corpus (make parity): exit $$checked"; cat .build-parity.log; \
		wait $$rolling; rolled=$$?; echo "=== $$(date -u +%T) the staged rollout on two hosts (Tests/Postgres/rollout.py): exit $$rolled"; \
		cat .build-rollout.log; \
		[ $$web -eq 0 ] && [ $$passed -eq 0 ] && [ $$checked -eq 0 ] && [ $$rolled -eq 0 ]

# Run by test-suites beside the web tests: the staged rollout (40 s), two hosts following a publication that rolls a
# crashing version back fleet-wide.
rollout-test:
	@if [ -n "$$RBS_TEST_POSTGRES" ]; then python3 Tests/Postgres/rollout.py; \
	else echo "*** SKIPPED: a staged rollout on two hosts (Tests/Postgres/rollout.py): no PostgreSQL server ***"; fi

# Run by test-suites beside the web tests.
test-suites-beside:
	@if [ -n "$$RBS_TEST_POSTGRES" ]; then \
		echo "RBSLedgerTests again, on PostgreSQL"; \
		RBS_TEST_LEDGER_ENGINE=postgres SWIFT_BACKTRACE=enable=no $(SWIFT) test --skip-build --filter RBSLedgerTests; \
	else echo "*** SKIPPED: RBSLedgerTests on PostgreSQL (no PostgreSQL server: RBS_TEST_POSTGRES is not set) ***"; fi
	SWIFT_BACKTRACE=enable=no $(SWIFT) test --skip-build --filter RBSServerTests

# The parity corpus (Tests/Parity/corpus.json): every scenario through the piped REPL, the one-shot CLI and the HTTP
# API, the same outcome and journal expected of each (the rules that protect money are the core's, not a front end's).
parity:
	python3 Tests/Parity/parity.py $(HOST) $(PLUGINS)

# The server's API fuzzer (schemathesis) and its web client in a real browser (chromium + selenium); installs them.
web-test:
	Tests/ServerWeb/run.sh

# Benchmarks build in their own folder, so a release build never waits on (or evicts) the debug one.
bench:
	RBS_NO_BENCH= $(SWIFT_BUILD) -c release --scratch-path .build-release --product rbs-host
	RBS_NO_BENCH= $(SWIFT) run --no-color-diagnostics -c release --scratch-path .build-release rbs-bench $(ARGS)

# rbs-host serve under load (wrk) next to a hello-world route in the same process, the same commits again while another
# plugin takes 3 s per call, and the server's context switches per commit; writes its part of BENCHMARKS.md.
bench-serve: plugins
	@command -v wrk >/dev/null || { echo "installing wrk (Debian): the load generator of this benchmark"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; } || \
		{ echo "make bench-serve: cannot install wrk (apt-get install wrk)"; exit 1; }
	RBS_NO_BENCH= $(SWIFT_BUILD) -c release --scratch-path .build-release --product rbs-host
	python3 Benchmarks/serve_load.py --write BENCHMARKS.md $(ARGS)

# Signed payments per second on PostgreSQL with 1, 2 and 3 host processes, next to pgbench against the same throw-away
# server and the SQLite figure (Benchmarks/postgres_bench.py); writes its part of BENCHMARKS.md.
bench-pg:
	RBS_NO_BENCH= $(SWIFT_BUILD) -c release --scratch-path .build-release --product rbs-host
	RBS_NO_BENCH= $(SWIFT_BUILD) -c release --scratch-path .build-release --product rbs-bench
	python3 Benchmarks/postgres_bench.py --write BENCHMARKS.md $(ARGS)

# Fuzzing (libFuzzer + AddressSanitizer): each parser that reads untrusted bytes has a target (Fuzz/Sources), built in
# its own folder (.build-fuzz; RBS_FUZZ=1 adds the targets to the package) so the debug build is never rebuilt for it.
# `make fuzz` runs each for FUZZ_SECONDS (niced) on its seeds (Fuzz/corpus) and prints executions and coverage; a
# crash fails it. Not part of `make test`: the crashes it found are regression tests in the suites.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= FuzzExpressions FuzzDescriptors FuzzWorkerWire FuzzPasskeyCBOR FuzzED807 FuzzCanonicalDocument
FUZZ_FLAGS := --scratch-path .build-fuzz -Xswiftc -sanitize=fuzzer,address

fuzz-build:
	@for target in $(FUZZ_TARGETS); do RBS_FUZZ=1 $(SWIFT_BUILD) $(FUZZ_FLAGS) --product $$target 2>&1 | \
		grep -v "Cannot export local symbol" || exit 1; done

fuzz: fuzz-build
	@failed=""; for target in $(FUZZ_TARGETS); do Fuzz/run.sh $$target $(FUZZ_SECONDS) || failed="$$failed $$target"; done; \
		if [ -n "$$failed" ]; then echo "make fuzz: failed:$$failed (inputs in .build-fuzz/crashes/)"; exit 1; fi

clean:
	rm -f $(PLUGINS)/*.so
	rm -rf .build .build-release .build-fuzz Examples/swift/.build Examples/rust/card-block/target
