# Merges the JSON lines of the shards of one sweep (durasim run -json, run
# as -shard i/n on n machines) into one account:
#   cat shard-*.jsonl | jq -s -f merge.jq
# The model's shards: summaries added up, the lowest failing seed's line
# kept. A target's shards (-target): the same for its summary's fields.
# The folded trace hash ("traces") folds every seed in order, so shards
# cannot add it up: the merge leaves it out.
def sum_maps: reduce (.[] | to_entries[]) as $e ({}; .[$e.key] += $e.value);
def total(f): map(f) | add;
(map(select(.type == "summary"))) as $s
| (map(select(.type == "violation")) | sort_by(.seed)) as $v
| (map(select(has("target") and has("traces")))) as $t
| if ($t | length) > 0 then
    {
      target:                ($t | map(.target) | unique | join(", ")),
      design:                ($t | map(.design) | unique | join(", ")),
      seeds:                 ($t | total(.seeds)),
      planned:               ($t | total(.planned // .seeds)),
      ops:                   ($t | total(.ops)),
      faults:                ($t | map(.faults) | sum_maps),
      paths:                 ($t | map(.paths) | sum_maps),
      exposures:             ($t | total(.exposures)),
      exposed_seeds:         ($t | total(.exposed_seeds)),
      violating_seeds:       ($t | map(.violating_seeds) | sum_maps),
      failing_seeds:         ($t | map(.failing_seeds) | add | sort),
      handler_failing_seeds: ($t | map(.handler_failing_seeds) | add | sort)
    }
  else
    {
      seeds:        ($s | total(.seeds)),
      drained:      ($s | total(.drained)),
      failed:       ($s | total(.failed)),
      events:       ($s | total(.events)),
      faults:       ($s | map(.faults) | sum_maps),
      boundaries:   ($s | map(.boundaries) | sum_maps),
      by_invariant: ($s | map(.by_invariant) | sum_maps),
      failed_seeds: ($s | map(.failed_seeds) | add | sort),
      first:        $v[0]
    }
    | .unfaulted = [.boundaries | to_entries[] | select(.value == 0) | .key]
  end
