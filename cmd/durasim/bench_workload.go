package main

import "github.com/durasim/durasim/sim"

// benchWorkload is the workload sim.Run draws for seed: the goroutine
// runners submit the very same documents.
func benchWorkload(cfg sim.Config, seed uint64) []sim.Doc { return sim.Workload(cfg, seed) }
