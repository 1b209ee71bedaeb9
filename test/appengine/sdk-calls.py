"""Drives the App Engine SDK's taskqueue API against the service under test.

Run by sdk-calls.test.ts with `python3 -S`: the SDK directory comes in
AE_SDK. Starts a small WSGI app (wrap_wsgi_app, use_deferred=True) on a
free port and prints `WSGI <port>`; reads `API <port>` on stdin (the
service's App Engine API port), then calls the API and prints one line
`RESULT <json>` of what happened, which the test asserts.
"""

import json
import os
import sys
import threading
import time

SDK = os.environ['AE_SDK']
sys.path[:0] = [SDK] + [os.path.join(SDK, 'lib', d) for d in sorted(os.listdir(os.path.join(SDK, 'lib')))]
os.environ['GAE_APPLICATION'] = 's~sdk-test'

from wsgiref.simple_server import WSGIRequestHandler, make_server  # noqa: E402

from google.appengine.api import apiproxy_stub_map, namespace_manager, taskqueue, wrap_wsgi_app  # noqa: E402
from google.appengine.api.taskqueue import taskqueue_service_bytes_pb2 as pb  # noqa: E402
from google.appengine.ext import deferred  # noqa: E402
from google.appengine.runtime import apiproxy_errors  # noqa: E402

ran = threading.Event()
seen = {}


def record(word):
  """The deferred function: runs in the app when the push task arrives."""
  seen['word'] = word
  seen['namespace'] = namespace_manager.get_namespace()
  ran.set()


def app(environ, start_response):
  start_response('404 Not Found', [('Content-Type', 'text/plain')])
  return [b'no such page']


wrapped = wrap_wsgi_app(app, use_deferred=True)


def served(environ, start_response):
  # deferred refuses task requests outside App Engine (REMOTE_ADDR 0.1.0.2)
  # unless the server says it is a development server.
  environ['SERVER_SOFTWARE'] = 'Development/sdk-test'
  seen.setdefault('headers', {}).update(
      {k: v for k, v in environ.items() if k.startswith('HTTP_X_APPENGINE_')})
  return wrapped(environ, start_response)


class Quiet(WSGIRequestHandler):

  def log_message(self, *args):
    pass


wsgi = make_server('127.0.0.1', 0, served, handler_class=Quiet)
threading.Thread(target=wsgi.serve_forever, daemon=True).start()
print('WSGI %d' % wsgi.server_port, flush=True)
api_port = sys.stdin.readline().split()[1]
os.environ['API_HOST'] = '127.0.0.1'
os.environ['API_PORT'] = api_port

out = {}


def raised(fn):
  """The class name of what fn raises, or 'none'."""
  try:
    fn()
  except Exception as e:  # the SDK's own classes
    return type(e).__name__
  return 'none'


def raw(method, request, response):
  """A call the SDK has no public function for, its error translated as the SDK translates."""
  try:
    apiproxy_stub_map.MakeSyncCall('taskqueue', method, request, response)
  except apiproxy_errors.ApplicationError as e:
    raise taskqueue.taskqueue._TranslateError(e.application_error, e.error_detail)
  return response


pull = taskqueue.Queue('pull-q')

# BulkAdd: named, unnamed, tagged pull tasks.
added = pull.add([
    taskqueue.Task(name='t1', payload=b'one', method='PULL', tag='red'),
    taskqueue.Task(name='t2', payload=b'two', method='PULL', tag='red'),
    taskqueue.Task(payload=b'three', method='PULL', tag='blue'),
])
out['added'] = [t.name for t in added]
out['enqueued'] = [t.was_enqueued for t in added]
out['single'] = pull.add(taskqueue.Task(name='t4', payload=b'\x00\xff', method='PULL')).name

# Per-task results: a taken name fails its own task; the others are added.
batch = [
    taskqueue.Task(name='t1', payload=b'again', method='PULL'),
    taskqueue.Task(name='t5', payload=b'five', method='PULL'),
]
out['taken'] = raised(lambda: pull.add(batch))
out['taken_enqueued'] = [t.was_enqueued for t in batch]

# Leases: by tag, grouped by the oldest tag, any.
red = pull.lease_tasks_by_tag(30, 10, tag='red')
out['red'] = sorted(t.name for t in red)
out['red_payload'] = sorted(t.payload.decode() for t in red)
blue = pull.lease_tasks_by_tag(30, 10)
out['grouped'] = sorted(t.tag for t in blue)
rest = pull.lease_tasks(30, 10)
out['rest'] = sorted(t.name for t in rest)
out['retry_count'] = red[0].retry_count

# ModifyTaskLease: the lease token moves; the old one is refused.
t1 = [t for t in red if t.name == 't1'][0]
stale = taskqueue.Task(name='t1', payload=b'x', method='PULL')
stale._Task__eta_posix = t1.eta_posix
pull.modify_task_lease(t1, 120)
out['modified'] = t1.eta_posix > stale.eta_posix
out['lease_expired'] = raised(lambda: pull.modify_task_lease(stale, 10))

# Delete: per-task results, unknown names ignored as the SDK ignores them.
gone = [taskqueue.Task(name='t2', payload=b'x', method='PULL'),
        taskqueue.Task(name='never-was', payload=b'x', method='PULL')]
pull.delete_tasks(gone)
out['deleted'] = [t.was_deleted for t in gone]
out['tombstoned'] = raised(lambda: pull.add(taskqueue.Task(name='t2', payload=b'x', method='PULL')))

# Errors raised as the SDK raises them.
out['unknown_queue'] = raised(lambda: taskqueue.Queue('nope').add(taskqueue.Task(payload=b'x', method='PULL')))
out['push_lease'] = raised(lambda: taskqueue.Queue('default').lease_tasks(10, 1))
out['pull_to_push'] = raised(lambda: taskqueue.Queue('default').add(taskqueue.Task(payload=b'x', method='PULL')))
out['bad_name'] = raised(lambda: pull.add(taskqueue.Task(name='cron-job-20250101T000000Z', payload=b'x', method='PULL')))
too_many = pb.TaskQueueBulkAddRequest()
for i in range(101):
  add = too_many.add_request.add()
  add.queue_name = b'pull-q'
  add.mode = 1
  add.body = b'x'
out['too_many'] = raised(lambda: raw('BulkAdd', too_many, pb.TaskQueueBulkAddResponse()))
transactional = pb.TaskQueueBulkAddRequest()
tx = transactional.add_request.add()
tx.queue_name = b'pull-q'
tx.mode = 1
tx.body = b'in a transaction'
tx.transaction.handle = 7
tx.transaction.app = b'sdk-test'
try:
  apiproxy_stub_map.MakeSyncCall('taskqueue', 'BulkAdd', transactional, pb.TaskQueueBulkAddResponse())
  out['transactional'] = 'added'
except apiproxy_errors.ApplicationError as e:
  out['transactional'] = [e.application_error, e.error_detail]
try:
  apiproxy_stub_map.MakeSyncCall('datastore_v3', 'Get', pb.TaskQueueFetchQueuesRequest(), pb.TaskQueueFetchQueuesResponse())
  out['other_service'] = 'answered'
except Exception as e:
  out['other_service'] = type(e).__name__

# Statistics, and the dev server stub's calls.
stats = taskqueue.QueueStatistics.fetch(pull)
out['stats_tasks'] = stats.tasks
out['stats_oldest'] = stats.oldest_eta_usec is not None
queues = raw('FetchQueues', pb.TaskQueueFetchQueuesRequest(max_rows=10), pb.TaskQueueFetchQueuesResponse())
out['queues'] = sorted((q.queue_name.decode(), q.mode) for q in queues.queue)
page = raw('QueryTasks', pb.TaskQueueQueryTasksRequest(queue_name=b'pull-q', max_rows=100), pb.TaskQueueQueryTasksResponse())
out['query_tasks'] = sorted(t.task_name.decode() for t in page.task)
one = raw('FetchTask', pb.TaskQueueFetchTaskRequest(queue_name=b'pull-q', task_name=b't4'), pb.TaskQueueFetchTaskResponse())
out['fetch_task'] = [t.body.hex() for t in one.task.task]
out['fetch_missing'] = raised(lambda: raw('FetchTask', pb.TaskQueueFetchTaskRequest(queue_name=b'pull-q', task_name=b'nothing'), pb.TaskQueueFetchTaskResponse()))
raw('PauseQueue', pb.TaskQueuePauseQueueRequest(queue_name=b'pull-q', pause=True), pb.TaskQueuePauseQueueResponse())
out['paused_lease'] = raised(lambda: pull.lease_tasks(10, 1))
raw('PauseQueue', pb.TaskQueuePauseQueueRequest(queue_name=b'pull-q', pause=False), pb.TaskQueuePauseQueueResponse())
out['delete_queue'] = raised(lambda: raw('DeleteQueue', pb.TaskQueueDeleteQueueRequest(queue_name=b'pull-q'), pb.TaskQueueDeleteQueueResponse()))
out['storage_limit'] = raised(lambda: raw('UpdateStorageLimit', pb.TaskQueueUpdateStorageLimitRequest(limit=1), pb.TaskQueueUpdateStorageLimitResponse()))

# A push task with its own URL, method, headers, countdown and retry parameters.
push = taskqueue.Queue('default')
later = push.add(taskqueue.Task(
    name='later', url='/hook?x=1', method='PUT', payload=b'body', headers={'X-Mine': 'v'},
    countdown=3600, retry_options=taskqueue.TaskRetryOptions(task_retry_limit=3, min_backoff_seconds=2)))
got = raw('FetchTask', pb.TaskQueueFetchTaskRequest(queue_name=b'default', task_name=b'later'),
          pb.TaskQueueFetchTaskResponse()).task.task[0]
out['push_task'] = {
    'url': got.url.decode(),
    'method': got.method,
    'headers': sorted([h.key.decode(), h.value.decode()] for h in got.header),
    'body': got.body.decode(),
    'countdown': round((got.eta_usec / 1e6 - time.time()) / 60),
}
push.delete_tasks(later)
out['push_deleted'] = later.was_deleted

# Purge a second pull queue (the first keeps its tasks for the REST check).
other = taskqueue.Queue('pull-two')
other.add([taskqueue.Task(payload=b'p%d' % i, method='PULL') for i in range(3)])
other.purge()
out['purged_left'] = taskqueue.QueueStatistics.fetch(other).tasks

# deferred, end to end: the push dispatcher delivers to the app's /_ah/queue/deferred.
namespace_manager.set_namespace('tenant-a')
deferred.defer(record, 'hello')
namespace_manager.set_namespace('')
out['deferred_ran'] = ran.wait(30)
out['deferred_word'] = seen.get('word')
out['deferred_namespace'] = seen.get('namespace')
out['deferred_headers'] = sorted(seen.get('headers', {}).keys())
print('RESULT ' + json.dumps(out), flush=True)
wsgi.shutdown()
