package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// farmDir holds the example manifests that farm a sweep out by shards.
const farmDir = "../../examples/farm"

// farmed is a manifest's sweep: its durasim arguments (after "durasim"),
// the variable that numbers its jobs and the indices the farm gives it.
type farmed struct {
	args    []string
	env     string
	indices []string
}

// TestFarmManifests parses the example Kubernetes Indexed Job and GitHub
// Actions matrix, checks that each runs durasim with a -shard whose index
// variable the manifest provides for every shard, and runs every shard
// (on a short range in place of the farm's) with that variable set: the
// shards' JSON lines merged by merge.jq equal the unsharded run's.
func TestFarmManifests(t *testing.T) {
	for _, m := range []struct {
		file  string
		parse func(*testing.T, []byte) farmed
	}{
		{"k8s-job.yaml", kubernetesJob},
		{"github-matrix.yml", githubMatrix},
	} {
		t.Run(m.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(farmDir, m.file))
			if err != nil {
				t.Fatal(err)
			}
			f := m.parse(t, b)
			checkShard(t, f)
			if testing.Short() {
				t.Skip("runs every shard")
			}
			checkMerge(t, f)
		})
	}
}

func kubernetesJob(t *testing.T, b []byte) farmed {
	t.Helper()
	var job struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Spec       struct {
			CompletionMode string `yaml:"completionMode"`
			Completions    int    `yaml:"completions"`
			Template       struct {
				Spec struct {
					Containers []struct {
						Command []string `yaml:"command"`
						Args    []string `yaml:"args"`
					} `yaml:"containers"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	if err := yaml.Unmarshal(b, &job); err != nil {
		t.Fatal(err)
	}
	s := job.Spec
	if job.APIVersion != "batch/v1" || job.Kind != "Job" || s.CompletionMode != "Indexed" || s.Completions < 2 {
		t.Fatalf("not an Indexed Job of several completions: %s %s, mode %q, %d completions", job.APIVersion, job.Kind, s.CompletionMode, s.Completions)
	}
	if len(s.Template.Spec.Containers) != 1 {
		t.Fatalf("%d containers, want the sweep's one", len(s.Template.Spec.Containers))
	}
	c := s.Template.Spec.Containers[0]
	cmd := append(slices.Clone(c.Command), c.Args...)
	if len(cmd) < 2 || filepath.Base(cmd[0]) != "durasim" {
		t.Fatalf("the container runs %q, not durasim", cmd)
	}
	// Kubernetes sets JOB_COMPLETION_INDEX in each pod of an Indexed Job
	// to its index, 0 to completions-1.
	f := farmed{args: cmd[1:], env: shardIndexEnv}
	for i := range s.Completions {
		f.indices = append(f.indices, strconv.Itoa(i))
	}
	return f
}

func githubMatrix(t *testing.T, b []byte) farmed {
	t.Helper()
	var wf struct {
		Jobs map[string]struct {
			Strategy struct {
				Matrix map[string]any `yaml:"matrix"`
			} `yaml:"strategy"`
			Env   map[string]string `yaml:"env"`
			Steps []struct {
				Run string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	job, ok := wf.Jobs["sweep"]
	if !ok {
		t.Fatal("no sweep job")
	}
	var f farmed
	for _, st := range job.Steps {
		fields := strings.Fields(st.Run)
		if len(fields) > 1 && filepath.Base(fields[0]) == "durasim" {
			if k := slices.Index(fields, ">"); k >= 0 {
				fields = fields[:k] // the shard's lines go to its artifact
			}
			f.args = fields[1:]
		}
	}
	if f.args == nil {
		t.Fatal("no step runs durasim")
	}
	sh := argAfter(t, f.args, "-shard")
	name, ok := strings.CutPrefix(strings.Split(sh, "/")[0], "env:")
	if !ok {
		t.Fatalf("-shard %s: a matrix job's index is in a variable of its own, want env:VAR/n", sh)
	}
	f.env = name
	// The variable is the job's, set from one matrix key listing the shards.
	key, ok := strings.CutSuffix(strings.TrimPrefix(strings.TrimSpace(job.Env[name]), "${{ matrix."), " }}")
	if !ok {
		t.Fatalf("env %s is %q, want ${{ matrix.KEY }}", name, job.Env[name])
	}
	values, ok := job.Strategy.Matrix[key].([]any)
	if !ok {
		t.Fatalf("matrix.%s is %v, want a list of shard indices", key, job.Strategy.Matrix[key])
	}
	for _, v := range values {
		f.indices = append(f.indices, fmt.Sprint(v))
	}
	return f
}

func argAfter(t *testing.T, args []string, flag string) string {
	t.Helper()
	k := slices.Index(args, flag)
	if k < 0 || k+1 >= len(args) {
		t.Fatalf("%q has no %s", args, flag)
	}
	return args[k+1]
}

// checkShard: the manifest's -shard reads its variable, and the farm's
// indices are each shard once, 0 to n-1.
func checkShard(t *testing.T, f farmed) {
	t.Helper()
	sh := argAfter(t, f.args, "-shard")
	var got []string
	for _, idx := range f.indices {
		i, n, err := parseShard(sh, func(name string) (string, bool) { return idx, name == f.env })
		if err != nil {
			t.Fatalf("-shard %s with $%s=%s: %v", sh, f.env, idx, err)
		}
		if n != uint64(len(f.indices)) {
			t.Errorf("-shard %s splits in %d, the farm runs %d jobs", sh, n, len(f.indices))
		}
		got = append(got, strconv.FormatUint(i, 10))
	}
	want := make([]string, len(f.indices))
	for i := range want {
		want[i] = strconv.Itoa(i)
	}
	if slices.Sort(got); !slices.Equal(got, want) {
		t.Errorf("the farm's jobs run shards %v, want each of %v once", got, want)
	}
}

// checkMerge runs the manifest's sweep on a short range, whole and in
// its shards, and holds the shards' merge to the whole run's.
func checkMerge(t *testing.T, f farmed) {
	t.Helper()
	args := slices.Clone(f.args)
	k := slices.Index(args, "-seeds")
	args[k+1] = "1:" + strconv.Itoa(5*len(f.indices)) // the farm's range is for a farm
	k = slices.Index(args, "-shard")
	whole := slices.Delete(slices.Clone(args), k, k+2)
	out, stderr, code := cli(whole...)
	if code > 1 {
		t.Fatalf("%q: exit %d\n%s", whole, code, stderr)
	}
	var shards strings.Builder
	for _, idx := range f.indices {
		t.Setenv(f.env, idx)
		o, stderr, c := cli(args...)
		if c > 1 {
			t.Fatalf("%q with $%s=%s: exit %d\n%s", args, f.env, idx, c, stderr)
		}
		shards.WriteString(o)
	}
	want, got := mergeJQ(t, out), mergeJQ(t, shards.String())
	if got != want {
		t.Errorf("the shards merged:\n%s\nthe whole run:\n%s", got, want)
	}
	if !strings.Contains(want, fmt.Sprintf(`"seeds": %d,`, 5*len(f.indices))) {
		t.Errorf("the merge does not count the range's seeds:\n%s", want)
	}
}

// mergeJQ runs examples/farm/merge.jq over JSON lines.
func mergeJQ(t *testing.T, lines string) string {
	t.Helper()
	jq, err := exec.LookPath("jq")
	if err != nil {
		t.Fatal("jq is needed to run examples/farm/merge.jq (bash .ci/install-deps installs it)")
	}
	cmd := exec.Command(jq, "-s", "-f", filepath.Join(farmDir, "merge.jq"))
	cmd.Stdin = strings.NewReader(lines)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("jq: %v\n%s", err, errb.String())
	}
	return out.String()
}
