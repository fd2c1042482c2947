# durasim — see README.md. `make report` is the main job, `make test` the tests.
GO ?= go
SEEDS ?= 2000

.PHONY: all test vet fmt-check unit race sweep report fuzz soak bench clean

all: test

# The test command CI runs (.ci/run): formatting, vet, every package's tests,
# the race detector where goroutines exist (cmd/), and a seed sweep of the
# correct design from the CLI.
test: fmt-check vet unit race sweep

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

unit:
	$(GO) test -count=1 ./...

race:
	$(GO) test -count=1 -race ./cmd/...

sweep:
	$(GO) run ./cmd/durasim run -seeds 1:$(SEEDS)

# Until the reports land, the main job lists the course scenarios and runs
# each one, correct design and naive variant side by side.
report:
	$(GO) run ./cmd/durasim scenarios

fuzz:
	$(GO) test -run=NONE -fuzz=FuzzParse -fuzztime=60s ./faults

# Long sweep of the correct design (not part of `make test`).
soak:
	$(GO) run ./cmd/durasim run -seeds 1:100000

bench:
	$(GO) test -run=NONE -bench=. -benchmem ./scheduler ./model ./invariants ./sim

clean:
	rm -rf reports/out
