# Herald: `make run` to try it, `make test` to test it, `make install` to install it.
PREFIX ?= $(HOME)/.local
DESTDIR ?=
SWIFT ?= swift
# For a fast `herald` start: each function in its own section, so lld can lay out what
# `herald remind` runs in the order of linker/herald.order (see Package.swift and `make
# order-file`); and generic types' metadata fetched through their accessors rather than
# looked up by mangled name, which spares the run-time demangler (a fifth of the
# instructions `herald remind` ran).
RELEASE_FLAGS = -c release --static-swift-stdlib -Xswiftc -Xfrontend -Xswiftc -function-sections \
	-Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors

# libnotify's pkg-config file without gdk-pixbuf's library, which heraldd does not use
# (packaging/pkgconfig/libnotify.pc says why).
export PKG_CONFIG_PATH := $(CURDIR)/packaging/pkgconfig$(if $(PKG_CONFIG_PATH),:$(PKG_CONFIG_PATH))
# herald-loop-db is C: released, it is compiled by the system's C compiler with Debian's
# hardening flags, since SwiftPM links every executable with the Swift runtime (6 MB for a
# program that has no Swift; BENCHMARKS.md, "Installed size").
CC ?= cc
LOOPDB_FLAGS = -O2 -g -Wall -Wextra -Wformat -Werror=format-security -fstack-protector-strong \
	-fstack-clash-protection -fcf-protection -D_FORTIFY_SOURCE=2 -fPIE -pie \
	-Wl,-z,relro -Wl,-z,now -Wl,--as-needed

BINDIR = $(DESTDIR)$(PREFIX)/bin
HELPERDIR = $(DESTDIR)$(PREFIX)/lib/herald
UNITDIR = $(DESTDIR)$(PREFIX)/share/systemd/user
SHAREDIR = $(DESTDIR)$(PREFIX)/share/herald
APPDIR = $(DESTDIR)$(PREFIX)/share/applications
MANDIR = $(DESTDIR)$(PREFIX)/share/man/man1
BASHDIR = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSHDIR = $(DESTDIR)$(PREFIX)/share/zsh/site-functions
FISHDIR = $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d

# Where `install-built` takes herald and heraldd from (the tests install the debug build).
BUILD_DIR ?= .build/release
# Generates man pages from the argument parser (swift-argument-parser's tool).
GENERATE_MANUAL ?= .build/debug/generate-manual
GENERATED = .build/generated

FUZZ_SECONDS ?= 120
FUZZ_SEED ?= $(shell date +%s)

.PHONY: all build release test run install install-built uninstall deps test-deps clean fuzz bench order-file man completions screenshot habit-screenshot compat deb test-deb bench-scale soak

all: build

deps:
	@scripts/dev/install-deps.sh build

test-deps:
	@scripts/dev/install-deps.sh test

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build $(RELEASE_FLAGS)
	$(CC) $(LOOPDB_FLAGS) -o .build/release/herald-loop-db Sources/herald-loop-db/main.c -lsqlite3
	$(CC) $(LOOPDB_FLAGS) -o .build/release/herald-wake Sources/herald-wake/main.c
	$(CC) $(LOOPDB_FLAGS) -o .build/release/herald-runner Sources/herald-runner/main.c

## Every test: unit tests and end-to-end tests on a private D-Bus session bus.
test: test-deps
	$(SWIFT) build --build-tests
	$(SWIFT) build --product generate-manual
	$(SWIFT) test --skip-build

## Herald's popups on every real notification server that runs here (xfce4-notifyd, dunst,
## notification-daemon, mate-notification-daemon, mako, GNOME Shell, KDE Plasma, swaync): writes
## docs/compat.md, the README's table and docs/compat/<server>.png. About fifteen minutes.
compat: test-deps
	scripts/dev/install-deps.sh compat
	$(SWIFT) build
	BIN=.build/debug scripts/desktop/compat.py

## Measure heraldd and herald against their targets (release build, about two minutes) and
## write the table into BENCHMARKS.md. A smoke run (100 jobs) is part of `make test`.
bench: test-deps
	$(SWIFT) build $(RELEASE_FLAGS)
	.build/release/herald-bench --output BENCHMARKS.md --command "make bench"
	python3 scripts/bench/calendar_bench --bin .build/release --output BENCHMARKS.md
	scripts/bench/hostile-bench.py --bin .build/release --output BENCHMARKS.md

## The scale curve: for 1,000 / 10,000 / 100,000 / 1,000,000 queued jobs, import and intake
## time, READY after a restart, RSS, fire lateness and the CLI's times (release build, about
## fifteen minutes); the table goes into BENCHMARKS.md ("Scale"), the plot to docs/bench/scale.png.
SCALE_SIZES ?= 1000,10000,100000,1000000
bench-scale: test-deps
	$(SWIFT) build $(RELEASE_FLAGS)
	.build/release/herald-bench --scale $(SCALE_SIZES) --output BENCHMARKS.md --scale-json docs/bench/scale.json --command "make bench-scale"
	/usr/bin/python3 scripts/bench/plot-scale.py docs/bench/scale.json docs/bench/scale.png

## A busy user's week in ten minutes (release build, about twelve minutes; not part of `make
## test`): 50,000 jobs due under cancels, snoozes, reschedules, habits, reloads, heraldd killed
## with SIGKILL and the notification server killed; checks nothing is lost, shown too often,
## leaked or crashed, and writes the result row into BENCHMARKS.md ("Soak").
soak: test-deps
	$(SWIFT) build $(RELEASE_FLAGS)
	/usr/bin/python3 scripts/bench/soak --bin .build/release --minutes 10 --output BENCHMARKS.md

## Rewrite linker/herald.order (what `herald remind` touches) and linker/heraldd.order (what
## heraldd runs) from the current release build, then relink both. Rerun after large changes
## to those paths; `make bench` shows the effect in the enqueue and memory rows.
order-file: release
	scripts/dev/install-deps.sh profile
	scripts/dev/order-file.sh .build/release/herald linker/herald.order
	scripts/dev/order-file-heraldd.sh .build/release linker/heraldd.order
	rm -f .build/release/herald .build/release/heraldd
	$(SWIFT) build $(RELEASE_FLAGS) --product herald
	$(SWIFT) build $(RELEASE_FLAGS) --product heraldd

## Fuzz for FUZZ_SECONDS (shared by the targets; FUZZ_TARGETS picks some: job span event phrase
## calendar config) from FUZZ_SEED; a short seeded run is part of `make test`. An input that
## crashes, hangs, breaks a property or takes over FUZZ_BUDGET_MS is saved under
## Tests/HeraldCoreTests/Fixtures/fuzz-regressions/<target>/, where FuzzTests replays it.
## Prints the executions per target at the end.
FUZZ_TARGETS ?= all
FUZZ_BUDGET_MS ?= 1000
fuzz: deps
	$(SWIFT) build $(RELEASE_FLAGS) --product herald-fuzz
	.build/release/herald-fuzz --seconds $(FUZZ_SECONDS) --seed $(FUZZ_SEED) --target $(FUZZ_TARGETS) --budget-ms $(FUZZ_BUDGET_MS)

## Build in release and run heraldd in the foreground.
run: release
	@scripts/dev/run.sh

## The Debian package herald_<version>-<revision>_amd64.deb, in the repository root, from the
## release build (packaging/debian/ holds its metadata; scripts/packaging/make-deb.sh), checked with lintian.
deb: release
	@scripts/dev/install-deps.sh deb
	scripts/packaging/make-deb.sh
	lintian --pedantic -I --fail-on error,warning,info herald_$$(dpkg-parsechangelog -l packaging/debian/changelog -S Version)_amd64.deb

## Check the package (size, lintian, hardening), then install it into a fresh Debian 12 root
## (debootstrap, cached in ~/.cache/herald) and test it there: herald doctor, popups through the
## console and through libnotify to a notification server on a private bus, an upgrade from the
## previous release keeping the spool (built once from git and cached), purge. Needs root.
test-deb: deb
	@deb=herald_$$(dpkg-parsechangelog -l packaging/debian/changelog -S Version)_amd64.deb; \
	if [ "$$(id -u)" -eq 0 ]; then scripts/packaging/test-deb.sh "$$deb"; else sudo scripts/packaging/test-deb.sh "$$deb"; fi

## Install the release build under PREFIX (default ~/.local): binaries, the systemd user unit,
## man pages, bash/zsh/fish completions, the example config, the job schema, the .desktop file.
install: release
	@$(MAKE) --no-print-directory install-built BUILD_DIR=.build/release
	@echo
	@echo "Installed. Start heraldd with your desktop session:"
	@echo "    systemctl --user daemon-reload && systemctl --user enable --now heraldd"
	@echo "Check the set-up with 'herald doctor'; try it with 'herald demo load'."
	@echo "For alarms that wake the machine from suspend (README \"Alarms\"):"
	@echo "    sudo setcap cap_wake_alarm+ep $(PREFIX)/lib/herald/herald-wake && systemctl --user enable --now herald-wake"
	@echo "Example configuration: $(PREFIX)/share/herald/config.yaml.example (copy it to ~/.config/herald/config.yaml)"

## Generate herald's man page and completions from BUILD_DIR's herald into .build/generated,
## beside heraldd's (written by hand in man/ and completions/: heraldd has no argument parser).
man completions: $(GENERATE_MANUAL)
	@test -x $(BUILD_DIR)/herald -a -x $(BUILD_DIR)/heraldd -a -x $(BUILD_DIR)/herald-loop-db || { echo "no herald/heraldd in $(BUILD_DIR): build first" >&2; exit 1; }
	rm -rf $(GENERATED) && mkdir -p $(GENERATED)/man $(GENERATED)/completions
	$(GENERATE_MANUAL) $(BUILD_DIR)/herald --authors "Herald's authors" -o $(GENERATED)/man
	$(BUILD_DIR)/herald --generate-completion-script bash > $(GENERATED)/completions/herald.bash
	$(BUILD_DIR)/herald --generate-completion-script zsh > $(GENERATED)/completions/_herald
	$(BUILD_DIR)/herald --generate-completion-script fish > $(GENERATED)/completions/herald.fish
	cp man/heraldd.1 $(GENERATED)/man/heraldd.1
	cp completions/heraldd.bash completions/_heraldd completions/heraldd.fish $(GENERATED)/completions/

$(GENERATE_MANUAL):
	$(SWIFT) build --product generate-manual

## Install what BUILD_DIR already holds (no build of herald itself).
install-built: man
	install -d $(BINDIR) $(HELPERDIR) $(UNITDIR) $(SHAREDIR) $(APPDIR) $(MANDIR) $(BASHDIR) $(ZSHDIR) $(FISHDIR)
	install -m 0755 $(BUILD_DIR)/herald $(BUILD_DIR)/heraldd $(BUILD_DIR)/herald-loop-db $(BINDIR)/
	install -m 0755 $(BUILD_DIR)/herald-wake $(BUILD_DIR)/herald-runner $(HELPERDIR)/
	sed 's|%h/.local/bin/heraldd|$(PREFIX)/bin/heraldd|' systemd/heraldd.service > $(UNITDIR)/heraldd.service
	sed 's|%h/.local/lib/herald/herald-wake|$(PREFIX)/lib/herald/herald-wake|' systemd/herald-wake.service > $(UNITDIR)/herald-wake.service
	chmod 0644 $(UNITDIR)/heraldd.service $(UNITDIR)/herald-wake.service
	install -m 0644 config/config.yaml $(SHAREDIR)/config.yaml.example
	install -m 0644 schema/job-v1.schema.json $(SHAREDIR)/job-v1.schema.json
	install -m 0644 config/herald.desktop $(APPDIR)/herald.desktop
	install -m 0644 $(GENERATED)/man/herald.1 $(GENERATED)/man/heraldd.1 $(MANDIR)/
	for tool in herald heraldd; do \
	  install -m 0644 $(GENERATED)/completions/$$tool.bash $(BASHDIR)/$$tool && \
	  install -m 0644 $(GENERATED)/completions/_$$tool $(ZSHDIR)/_$$tool && \
	  install -m 0644 $(GENERATED)/completions/$$tool.fish $(FISHDIR)/$$tool.fish || exit 1; \
	done

## Remove exactly what `make install` put under PREFIX (and directories left empty by that).
## Your spool (~/.local/state/herald) and configuration (~/.config/herald) stay.
uninstall:
	rm -f $(BINDIR)/herald $(BINDIR)/heraldd $(BINDIR)/herald-loop-db $(UNITDIR)/heraldd.service $(APPDIR)/herald.desktop
	rm -f $(HELPERDIR)/herald-wake $(HELPERDIR)/herald-runner $(UNITDIR)/herald-wake.service
	rm -f $(SHAREDIR)/config.yaml.example $(SHAREDIR)/job-v1.schema.json
	rm -f $(MANDIR)/herald.1 $(MANDIR)/heraldd.1
	rm -f $(BASHDIR)/herald $(BASHDIR)/heraldd $(ZSHDIR)/_herald $(ZSHDIR)/_heraldd $(FISHDIR)/herald.fish $(FISHDIR)/heraldd.fish
	@for dir in $(HELPERDIR) $(DESTDIR)$(PREFIX)/lib $(SHAREDIR) $(MANDIR) $(BASHDIR) $(ZSHDIR) $(FISHDIR) $(UNITDIR) $(APPDIR) $(BINDIR) \
	    $(DESTDIR)$(PREFIX)/share/man $(DESTDIR)$(PREFIX)/share/bash-completion $(DESTDIR)$(PREFIX)/share/zsh \
	    $(DESTDIR)$(PREFIX)/share/fish $(DESTDIR)$(PREFIX)/share/systemd $(DESTDIR)$(PREFIX)/share; do \
	  rmdir "$$dir" 2>/dev/null || true; \
	done
	@echo "Uninstalled. If you had enabled heraldd: systemctl --user disable --now heraldd (your spool and config are kept)."

## Popups on a virtual screen (Xvfb + dunst on a private bus) saved to docs/screenshot.png.
screenshot: release
	BIN=.build/release scripts/screenshots/screenshot.sh docs/screenshot.png

## `herald habit show` in colour, rendered to docs/habit-show.png for the README.
habit-screenshot: build
	scripts/screenshots/habit-screenshot.sh .build/debug docs/habit-show.png

clean:
	rm -rf .build
