package asynqchaos

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/durasim/durasim/targetsim"
)

// Queue is the asynq queue a run uses; TaskType its tasks' type (the
// target seam's document kind).
const (
	Queue    = "durasim"
	TaskType = targetsim.KindDoc
)

// TaskID is document i's asynq task ID: the same document always gets
// the same ID, so asynq refuses a second enqueue of it while its task
// exists.
func TaskID(i int) string { return "j" + strconv.Itoa(i) }

// jobOfID reads a TaskID back as the seam's job number.
func jobOfID(id string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimPrefix(id, "j"), 10, 64)
	if err != nil || !strings.HasPrefix(id, "j") || n < 1 {
		return 0, fmt.Errorf("task ID %q is not one of durasim's (j1, j2, ...)", id)
	}
	return n, nil
}
