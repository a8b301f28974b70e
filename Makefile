# Herald: `make run` to try it, `make test` to test it, `make install` to install it.
PREFIX ?= $(HOME)/.local
DESTDIR ?=
SWIFT ?= swift
RELEASE_FLAGS = -c release --static-swift-stdlib

BINDIR = $(DESTDIR)$(PREFIX)/bin
UNITDIR = $(DESTDIR)$(PREFIX)/share/systemd/user
SHAREDIR = $(DESTDIR)$(PREFIX)/share/herald
APPDIR = $(DESTDIR)$(PREFIX)/share/applications

FUZZ_SECONDS ?= 120
FUZZ_SEED ?= $(shell date +%s)

.PHONY: all build release test run install uninstall deps test-deps clean fuzz bench

all: build

deps:
	@scripts/install-deps.sh build

test-deps:
	@scripts/install-deps.sh test

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build $(RELEASE_FLAGS)

## Every test: unit tests and end-to-end tests on a private D-Bus session bus.
test: test-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

## Measure heraldd and herald against their targets (release build, about two minutes) and
## write the table into BENCHMARKS.md. A smoke run (100 jobs) is part of `make test`.
bench: test-deps
	$(SWIFT) build $(RELEASE_FLAGS)
	.build/release/herald-bench --output BENCHMARKS.md --command "make bench"

## Fuzz the job decoder, span parser and calendar parser for FUZZ_SECONDS (a short seeded
## run is part of `make test`). A crash saves its input to fuzz-crash-<target>.bin.
fuzz: deps
	$(SWIFT) build -c release --product herald-fuzz
	.build/release/herald-fuzz --seconds $(FUZZ_SECONDS) --seed $(FUZZ_SEED)

## Build in release and run heraldd in the foreground.
run: release
	@scripts/run.sh

install: release
	install -d $(BINDIR) $(UNITDIR) $(SHAREDIR) $(APPDIR)
	install -m 0755 .build/release/herald .build/release/heraldd $(BINDIR)/
	sed 's|%h/.local/bin/heraldd|$(PREFIX)/bin/heraldd|' systemd/heraldd.service > $(UNITDIR)/heraldd.service
	chmod 0644 $(UNITDIR)/heraldd.service
	install -m 0644 config/config.yaml $(SHAREDIR)/config.yaml.example
	install -m 0644 schema/job-v1.schema.json $(SHAREDIR)/job-v1.schema.json
	install -m 0644 config/herald.desktop $(APPDIR)/herald.desktop
	@echo
	@echo "Installed. Start heraldd with your desktop session:"
	@echo "    systemctl --user daemon-reload && systemctl --user enable --now heraldd"
	@echo "Example configuration: $(PREFIX)/share/herald/config.yaml.example (copy it to ~/.config/herald/config.yaml)"

uninstall:
	rm -f $(BINDIR)/herald $(BINDIR)/heraldd $(UNITDIR)/heraldd.service $(APPDIR)/herald.desktop
	rm -f $(SHAREDIR)/config.yaml.example $(SHAREDIR)/job-v1.schema.json
	-rmdir $(SHAREDIR) 2>/dev/null

clean:
	rm -rf .build
