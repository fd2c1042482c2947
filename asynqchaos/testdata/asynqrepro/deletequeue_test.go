package asynqrepro

import (
	"bufio"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"
)

// redis starts a throwaway redis-server on a Unix socket (no TCP port, no
// persistence) and stops it at the test's end.
func redis(t *testing.T) asynq.RedisClientOpt {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatalf("redis-server: %v (install it: Debian's redis-server package)", err)
	}
	dir, err := os.MkdirTemp("", "asynqrepro-")
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "redis.sock")
	cmd := exec.Command(bin, "--port", "0", "--unixsocket", sock, "--save", "", "--appendonly", "no", "--dir", dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait(); os.RemoveAll(dir) })
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("unix", sock); err == nil {
			_, _ = c.Write([]byte("PING\r\n"))
			line, _ := bufio.NewReader(c).ReadString('\n')
			c.Close()
			if strings.TrimSpace(line) == "+PONG" {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("redis-server did not start")
		}
	}
	return asynq.RedisClientOpt{Network: "unix", Addr: sock}
}

// Inspector.DeleteQueue(queue, true) removes a queue "regardless of the
// queue size as long as no tasks are active in the queue", but a task
// completed with a retention survives it: the queue is no longer listed
// and GetTaskInfo answers that the queue is not found, yet the task's
// hash stays and its ID stays taken, so enqueueing that ID again into the
// queue fails with ErrTaskIDConflict (the Lua script of the forced
// removal deletes the hashes of the pending, active, scheduled, retry and
// archived tasks, not of the completed ones). (durasim's run emptied its queue with DeleteQueue;
// the next run's first enqueues were refused, and its documents never
// ran. It now deletes the completed tasks first.)
func TestDeleteQueueKeepsCompletedTasks(t *testing.T) {
	opt := redis(t)
	const queue, id = "q", "doc-1"
	client := asynq.NewClient(opt)
	defer client.Close()
	insp := asynq.NewInspector(opt)
	defer insp.Close()
	task := asynq.NewTask("doc", []byte(`{}`))
	if _, err := client.Enqueue(task, asynq.TaskID(id), asynq.Queue(queue), asynq.Retention(time.Hour)); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{}, 1)
	srv := asynq.NewServer(opt, asynq.Config{Queues: map[string]int{queue: 1}, LogLevel: asynq.ErrorLevel})
	if err := srv.Start(asynq.HandlerFunc(func(context.Context, *asynq.Task) error { done <- struct{}{}; return nil })); err != nil {
		t.Fatal(err)
	}
	<-done
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if ti, err := insp.GetTaskInfo(queue, id); err == nil && ti.State == asynq.TaskStateCompleted {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the task did not complete")
		}
	}
	srv.Shutdown()

	if err := insp.DeleteQueue(queue, true); err != nil {
		t.Fatalf("DeleteQueue: %v", err)
	}
	qs, err := insp.Queues()
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(qs, queue) {
		t.Fatalf("queue %q still listed after DeleteQueue: %v", queue, qs)
	}
	if _, err := insp.GetTaskInfo(queue, id); !errors.Is(err, asynq.ErrQueueNotFound) {
		t.Fatalf("GetTaskInfo after DeleteQueue: %v, want the queue not found", err)
	}
	_, err = client.Enqueue(task, asynq.TaskID(id), asynq.Queue(queue))
	if !errors.Is(err, asynq.ErrTaskIDConflict) {
		t.Fatalf("Enqueue of ID %s into the deleted queue: %v, want ErrTaskIDConflict (the behaviour this test pins)", id, err)
	}
}
