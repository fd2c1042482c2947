# durasim — see README.md. `make report` is the main job, `make test` the tests.
GO ?= go
PGDIR ?= .pg
SEEDS ?= 5000

.PHONY: all build preflight test vet fmt-check unit race arch386 sweep mutants exhaustive report fuzz soak bench bench-instr pgo clean pg-up pg-down cover mutation mutation-sql river-compat river-repro river-cover goqite-compat goqite-repro goqite-chaos asynq-compat asynq-repro asynq-record

all: test

# The CLI as a binary, bin/durasim (with the profile in cmd/durasim/default.pgo).
# Scripts should call it rather than `go run`, which reports any failure as
# exit status 1: the binary exits 2 for bad usage, 1 for a violation.
# It first downloads every module go.mod lists: go build fetches only the
# modules of the packages it builds, so without this `go vet ./...` (the
# tests' packages: the browser tests' chromedp among them) fetched more
# modules later, in the middle of make test.
build:
	$(GO) mod download
	$(GO) build -o bin/durasim ./cmd/durasim

# The test command CI runs (.ci/run): formatting, vet, every package's tests
# (the HTML pages in headless Chromium among them: .ci/run installs it),
# the race detector where goroutines exist (cmd/), a 5000-seed sweep of the
# correct design, every naive variant caught, and every single fault and pair
# of faults on the small workload. About 12 minutes on 2 cores with warm
# module and build caches; 25 CPU-minutes from empty ones (see README).
# The preflight runs first: in a second it names every tool the machine
# lacks (chromium, rsvg-convert, the PostgreSQL server binaries,
# redis-server) and the command that installs them, .ci/install-deps
# (which .ci/run runs), instead of failing a test minutes later.
test: preflight fmt-check vet unit race arch386 sweep mutants exhaustive

preflight:
	@bash .ci/install-deps --check

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

unit:
	$(GO) test -count=1 ./...

# Traces are the same on every architecture: the pinned trace hashes of
# sim/testdata/hashes.golden, checked on amd64 by unit, again as GOARCH=386
# (32-bit int; it runs natively on amd64 machines).
arch386:
	GOARCH=386 $(GO) test -count=1 -run 'TestTraceHashesPinned' ./sim

# Goroutines live only in cmd/ and the SQL backends: those run under the
# race detector too (-short; under -race the mirror's model-vs-SQLite
# sweep takes 10 seeds instead of 200 and its broken-store cases, which
# run on one goroutine, are left to unit: see mirror/race_on_test.go).
race:
	@echo "race: go test -race -short on the packages with goroutines (cmd/, sqlstore, mirror, crash and crash/workload, chaos, internal/pgtest, overlap and target/rivertarget: races mode);"
	@echo "race: about 5 minutes on 2 cores, mostly cmd/durasim's tests; each package prints when it is done"
	$(GO) test -count=1 -race -short ./cmd/... ./sqlstore ./mirror ./crash/... ./chaos ./internal/pgtest/... ./overlap ./target/rivertarget

sweep: build
	bin/durasim run -seeds 1:$(SEEDS)

mutants: build
	bin/durasim mutants -seeds 1:1000

exhaustive: build
	bin/durasim run -exhaustive

# The main job: every course scenario (correct design and naive variants on
# the same seed) as Markdown reports with SVG charts, in pt-BR and en, under
# reports/out/ (index.md first), and the same reports as HTML pages with each
# counterexample's interactive timeline under reports/out/site/ (open
# index.html), the River report (every handler design against River,
# reports/river.go) and River, goqite and asynq side by side
# (reports/side.go: goqite's sweeps run beside River's; asynq's figures
# come from reports/data/asynq-chaos.json, which asynq-record writes).
# Takes a few seconds for the scenarios and about ten more for River's
# sweeps, and goqite's; exits 1 if a report's checks do not hold. The
# committed copy is reports/testdata/golden/.
report: build
	rm -rf reports/out
	bin/durasim report -out reports/out

# The side-by-side report's asynq recording: one `chaos -target asynq
# -kills 12` per asynq handler design (real processes, a throwaway
# redis-server; the handlers' database is $$DURASIM_PG_URL, e.g.
# eval "$$(make -s pg-up)"), written with its time and command to
# reports/data/asynq-chaos.json. About three minutes a design. Then
# `go test ./reports -update` and review the diff.
asynq-record: build
	bin/durasim report -record-asynq reports/data/asynq-chaos.json -asynq-kills 12

fuzz:
	$(GO) test -run=NONE -fuzz=FuzzParse -fuzztime=60s ./faults

# Long sweep of the correct design (not part of `make test`).
soak: build
	bin/durasim run -seeds 1:100000

# Statement coverage of model/ and workflow/ (the durable-workflow engine
# the swarm runs a share of documents through: sim/workflow.go) by the standard sweep through the CLI's own
# path, not the unit tests: `durasim run -seeds 1:2000` (the correct design)
# and then `durasim mutants -seeds 1:1000 -trials 20` (the catalogue, as
# its must-show runs it: the only sweep that runs the naive variants' code
# in model/naive.go); a lone ';'
# separates runs, whose coverage adds up. Prints every block neither
# reaches, grouped by function. A measurement: exits 0, and says whether
# the target is met. COVERPKG (comma-separated) and COVERARGS measure other
# packages or sweeps, e.g.
#   make cover COVERARGS='run -seeds 1:2000'   (the correct design alone)
#   make cover COVERPKG=./sqlstore COVERARGS='run -seeds 1:200 -backend sqlite'
COVERPKG ?= ./model,./workflow
COVERARGS ?= run -seeds 1:2000 ';' mutants -seeds 1:1000 -trials 20
cover:
	$(GO) run ./internal/mutation/cmd/cover -pkg $(COVERPKG) -main ./cmd/durasim -- $(COVERARGS)

# Mutation testing of model/ with the sweep as the killer (the sweep of
# `durasim run -seeds 1:2000`, stopping at the first failing seed, then the
# catalogue check of `durasim mutants -seeds 1:1000`: every naive variant
# still caught; see internal/mutation): killed / survived / not covered /
# not viable / timed out, the score against the 90% target (and the score
# of the correct design's sweep alone), every survivor, and a JSON report
# in tmp/mutation/. Survivors argued equivalent go in
# internal/mutation/equivalent/<package>.txt. MUTFLAGS passes flags, e.g.
#   make mutation MUTFLAGS='-run queue.go -j 1'
# The naive variants' own code (model/naive.go, model/dualwrite.go) is left
# out (MUTSKIP): a mutant of a planted bug is another planted bug, which
# says nothing of the oracles' power on the correct code; the catalogue
# check in the killer is what guards that code (every variant still caught).
# MUTPKG lists the packages, each mutated in turn with its own report
# (tmp/mutation/<package>/) and equivalents file: model/ and workflow/
# (whose engine the swarm runs, sim/workflow.go), e.g.
#   make mutation MUTPKG=./workflow
MUTPKG ?= ./model ./workflow
MUTSKIP ?= ^(naive|dualwrite)\.go:
mutation:
	@st=0; for p in $(MUTPKG); do \
	  $(GO) run ./internal/mutation/cmd/mutation -pkg $$p -skip '$(MUTSKIP)' -out tmp/mutation/$$(basename $$p) $(MUTFLAGS) || st=1; \
	done; exit $$st

# Mutation testing of sqlstore/ (Go code and the SQL in its string
# literals) with three runs as the killer, not the store's unit tests: the
# lockstep mirror on SQLite (every store decision and every column compared
# with the model), the mirror on PostgreSQL, and a short real-crash chaos run
# on PostgreSQL (processes SIGKILLed inside the store's transactions). Each
# PostgreSQL run makes its own database (-scratch-db), so two mutants run
# side by side on one server: $$DURASIM_PG_URL's, else a throwaway one in
# $(MUTPGDIR). The chaos run is short, so it counts the paths it took but
# does not fail for a rare one missed by chance (-every-path=false): only a
# violation kills a mutant. Target 85%. Reports go to tmp/mutation-sql/.
MUTSQLKILLER ?= ./cmd/durasim run -backend sqlite -seeds 1:60 ; run -backend postgres -scratch-db -seeds 1:10 ; chaos -scratch-db -workers 4 -relays 2 -consumers 2 -jobs 60 -kills 40 -drain 30s -timeout 90s -every-path=false -quiet
MUTPGDIR ?= $(CURDIR)/tmp/mutation-sql-pg
mutation-sql:
	@if [ -z "$$DURASIM_PG_URL" ]; then \
	  $(GO) run ./internal/pgtest/cmd/pgserver down -dir $(MUTPGDIR) >/dev/null 2>&1; rm -rf $(MUTPGDIR); \
	  eval "$$($(GO) run ./internal/pgtest/cmd/pgserver up -dir $(MUTPGDIR))" || exit 1; \
	  trap '$(GO) run ./internal/pgtest/cmd/pgserver down -dir $(MUTPGDIR)' EXIT; \
	fi; \
	$(GO) run ./internal/mutation/cmd/mutation -pkg ./sqlstore -killer '$(MUTSQLKILLER)' -target 85 -out tmp/mutation-sql $(MUTFLAGS)

# Statement coverage of River's own packages (river, its internal/
# packages, the drivers, rivermigrate) by each River mode: the
# deterministic sweep (RIVERCOVERSEEDS seeds, a quarter as many of the
# outbox design), the in-process mode (a fiftieth as many seeds, and a
# failing seed of the naive effect-outside-tx) and, with DURASIM_PG_URL
# set (make pg-up), a short chaos
# run; beside the parts of River's client logic durasim still re-enacts
# (internal/rivercover). A measurement: exits 0 whatever the figures.
RIVERCOVERSEEDS ?= 500
river-cover:
	$(GO) run ./internal/rivercover/cmd/rivercover -seeds $(RIVERCOVERSEEDS)

# River's other releases (internal/rivercompat/compat.sh says what passes):
# for each of RIVER_VERSIONS, a copy of the working tree with River's
# modules at that version must build (go build ./...) and sweep
# `durasim run -target river -seeds 1:500` to a verdict, the correct
# handler's effects holding on the pinned release and later. The default
# is every release the module proxy serves riversqlite for, from the
# oldest the adapter builds against (v0.42.0; v0.39.0 and earlier lack
# JobRescueManyParams.StuckHorizon) to the pinned one: about 15 minutes
# for the nine on the shared 2-core machine (2026-12-07). Logs in
# tmp/river-compat/. First, River's behaviours reproduced without durasim
# (river-repro).
RIVER_VERSIONS ?= v0.42.0 v0.43.0 v0.47.0 v0.48.0 v0.49.0 v0.50.0 v0.51.0 v0.51.1 v0.51.2
river-compat: river-repro
	RIVER_VERSIONS="$(RIVER_VERSIONS)" GO="$(GO)" bash internal/rivercompat/compat.sh

# asynq's releases (internal/rivercompat/compat.sh, COMPAT_TARGET=asynq, says what passes): for
# each of ASYNQ_VERSIONS, a copy of the working tree with asynq at that
# version must build and run a short `durasim chaos -target asynq` to its
# report (a throwaway redis-server and PostgreSQL server), every check
# holding from the pinned release on. About 70 s per version (asynq's
# lease and recoverer set the drain's pace).
ASYNQ_VERSIONS ?= v0.23.0 v0.24.1 v0.25.1 v0.26.0
asynq-compat: asynq-repro
	COMPAT_TARGET=asynq ASYNQ_VERSIONS="$(ASYNQ_VERSIONS)" GO="$(GO)" bash internal/rivercompat/compat.sh

# asynq's behaviours durasim found, as plain Go tests against asynq alone
# (asynqchaos/testdata/asynqrepro, its own module; a throwaway redis-server).
asynq-repro:
	cd asynqchaos/testdata/asynqrepro && $(GO) test -count=1 ./...

# River's behaviours durasim found, as plain Go tests against River alone
# (target/rivertarget/testdata/riverrepro: River v0.51.2; v047/: v0.47.0).
river-repro:
	cd target/rivertarget/testdata/riverrepro && $(GO) test -count=1 ./...
	cd target/rivertarget/testdata/riverrepro/v047 && $(GO) test -count=1 ./...

# goqite's releases (the same script, COMPAT_TARGET=goqite): the old
# module path's github.com/maragudk/goqite v0.2.3 (a copy with its module
# path rewritten, built with -tags goqite_v02) and maragu.dev/goqite
# v0.4.0 must build and sweep `durasim run -target goqite -design
# idempotent-key -seeds 1:500` to a verdict. First, goqite's behaviours
# reproduced without durasim (goqite-repro).
GOQITE_VERSIONS ?= github.com/maragudk/goqite@v0.2.3 maragu.dev/goqite@v0.4.0
goqite-compat: goqite-repro
	COMPAT_TARGET=goqite GOQITE_VERSIONS="$(GOQITE_VERSIONS)" GO="$(GO)" bash internal/rivercompat/compat.sh

# goqite's own queue API in child processes on one SQLite file, SIGKILLed
# at the handler's points and frozen past the visibility timeout (package
# goqitechaos on crash/workload; its e2e tests, about 5 s, run in unit).
# About 40 s for 300 kills; no server needed.
goqite-chaos: build
	bin/durasim chaos -target goqite -kills 300

# goqite's behaviours durasim found, as plain Go tests against goqite
# alone (target/goqitetarget/testdata/goqiterepro: goqite v0.4.0).
goqite-repro:
	cd target/goqitetarget/testdata/goqiterepro && $(GO) test -count=1 ./...

# Benchmarks (benchstat-friendly: `make bench BENCHCOUNT=10 > new.txt`),
# then durasim against a bare event loop, synctest and clock.Mock.
bench: build
	$(GO) test -run=NONE -bench=. -benchmem -count=$(or $(BENCHCOUNT),1) ./scheduler ./model ./invariants ./sim
	bin/durasim bench

# Instructions per seed of BenchmarkSeed, counted by valgrind (cachegrind,
# with the collector off, so that its pacing adds no noise):
# unlike ns/op on a shared machine (noisy by 10-30% run to run), the same
# code gives the same count, so a change's cost can be compared exactly.
# REF=<commit> also counts that commit (in a temporary worktree) and prints
# the ratio. Needs valgrind (apt-get install valgrind); not part of `test`.
bench-instr:
	@command -v valgrind >/dev/null || { echo "bench-instr: needs valgrind (apt-get install valgrind)"; exit 2; }
	@count() { $(GO) test -c -o $$1/instr.test ./sim >/dev/null && \
	  for n in 300 900; do GOMAXPROCS=1 GOGC=off valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
	    $$1/instr.test -test.run=NONE -test.bench='Seed$$' -test.benchtime=$${n}x 2>&1 | awk '/I +refs/{gsub(",","",$$4); print $$4}'; \
	  done | paste -sd' ' | awk '{printf "%d\n", ($$2-$$1)/600}'; rm -f $$1/instr.test; }; \
	tmp=$$(mktemp -d); now=$$(count $$tmp); echo "instructions/seed  $$now  (working tree)"; \
	if [ -n "$(REF)" ]; then git worktree add -q --detach $$tmp/ref $(REF) && \
	  ref=$$(cd $$tmp/ref && count $$tmp) && echo "instructions/seed  $$ref  ($(REF))" && \
	  awk -v a=$$ref -v b=$$now 'BEGIN{printf "ratio              %.3f\n", b/a}'; git worktree remove --force $$tmp/ref; fi; rm -rf $$tmp

# The CLI is built with profile-guided optimisation from cmd/durasim/default.pgo
# (go build picks it up by itself). Regenerate it after changing the hot path:
# a CPU profile of whole seeds of the standard workload.
pgo:
	$(GO) test -run=NONE -bench='Seed$$' -benchtime=5s -cpuprofile=cmd/durasim/default.pgo ./sim
	rm -f sim.test

# A throwaway PostgreSQL server for manual runs (the tests start their own).
# pg-up prints one line, export DURASIM_PG_URL='...', so
# `eval "$$(make -s pg-up)"` sets it; pg-down stops it and removes $(PGDIR).
pg-up:
	@$(GO) run ./internal/pgtest/cmd/pgserver up -dir $(PGDIR)

pg-down:
	@$(GO) run ./internal/pgtest/cmd/pgserver down -dir $(PGDIR)

clean:
	rm -rf reports/out bin
