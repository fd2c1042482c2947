package main

import (
	"strconv"
	"strings"
)

// shardUsage is -shard's help, for the model's sweep and the targets'.
const shardUsage = "i/n: run only the seeds s of the range A:B with (s-A) % n == i, 0 <= i < n; " +
	"env/n reads i from $" + shardIndexEnv + " (a Kubernetes Indexed Job's pod index), env:VAR/n from $VAR (a CI matrix's)"

// shardIndexEnv is the variable -shard env/n reads: Kubernetes sets it in
// each pod of an Indexed Job to the pod's index, 0 to completions-1.
const shardIndexEnv = "JOB_COMPLETION_INDEX"

// parseShard reads -shard: i/n, or env/n and env:VAR/n with i read from
// the environment (lookup), so one command line serves every job of a
// farm that numbers its jobs in a variable.
func parseShard(s string, lookup func(string) (string, bool)) (i, n uint64, err error) {
	bad := usageErr("invalid -shard %q: want i/n with 0 <= i < n, env/n or env:VAR/n", s)
	a, b, ok := strings.Cut(s, "/")
	if !ok {
		return 0, 0, bad
	}
	n, err = strconv.ParseUint(b, 10, 64)
	if err != nil || n == 0 {
		return 0, 0, bad
	}
	if a == "env" || strings.HasPrefix(a, "env:") {
		return shardFromEnv(s, a, n, lookup)
	}
	i, err = strconv.ParseUint(a, 10, 64)
	if err != nil || i >= n {
		return 0, 0, bad
	}
	return i, n, nil
}

func shardFromEnv(s, a string, n uint64, lookup func(string) (string, bool)) (uint64, uint64, error) {
	name := shardIndexEnv
	if v, ok := strings.CutPrefix(a, "env:"); ok {
		if !validEnvName(v) {
			return 0, 0, usageErr("invalid -shard %q: %q is not a variable name", s, v)
		}
		name = v
	}
	v, ok := lookup(name)
	if !ok {
		return 0, 0, usageErr("invalid -shard %q: $%s is not set (want the shard's index, 0 to %d)", s, name, n-1)
	}
	i, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
	if err != nil || i >= n {
		return 0, 0, usageErr("invalid -shard %q: $%s is %q, want 0 to %d", s, name, v, n-1)
	}
	return i, n, nil
}

// validEnvName: letters, digits and underscores, not starting with a digit.
func validEnvName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for _, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
