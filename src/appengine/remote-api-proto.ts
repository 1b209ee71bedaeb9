/**
 * The messages of App Engine's API protocol, written from the SDK's
 * documented wire format (proto2): the `remote_api` envelope every call
 * travels in, and the task-queue service's requests and responses. Only
 * the fields this service reads or writes are declared; unknown fields are
 * skipped by the decoder. Enum fields are declared as int32 (the same wire
 * form) so an unexpected value never fails a decode. The datastore
 * transaction and admin-console payload of an add are declared as bytes:
 * only their presence matters (both are refused).
 */
export const REMOTE_API_PROTO = `
syntax = "proto2";
package aeapi;

message Request {
  optional string service_name = 2;
  optional string method = 3;
  optional bytes request = 4;
  optional string request_id = 5;
  optional bytes trace_context = 6;
}

message ApplicationError {
  optional int32 code = 1;
  optional string detail = 2;
}

message RpcError {
  optional int32 code = 1;
  optional string detail = 2;
}

message Response {
  optional bytes response = 1;
  optional bytes exception = 2;
  optional ApplicationError application_error = 3;
  optional bytes java_exception = 4;
  optional RpcError rpc_error = 5;
}

message RetryParameters {
  optional int32 retry_limit = 1;
  optional int64 age_limit_sec = 2;
  optional double min_backoff_sec = 3;
  optional double max_backoff_sec = 4;
  optional int32 max_doublings = 5;
}

message AddRequest {
  optional bytes queue_name = 1;
  optional bytes task_name = 2;
  optional int64 eta_usec = 3;
  optional bytes url = 4;
  optional int32 method = 5 [default = 2];
  repeated group Header = 6 {
    optional bytes key = 7;
    optional bytes value = 8;
  }
  optional bytes body = 9;
  optional bytes transaction = 10;
  optional bytes app_id = 11;
  optional group CronTimetable = 12 {
    optional bytes schedule = 13;
    optional bytes timezone = 14;
  }
  optional bytes description = 15;
  optional bytes payload = 16;
  optional RetryParameters retry_parameters = 17;
  optional int32 mode = 18;
  optional bytes tag = 19;
  optional RetryParameters cron_retry_parameters = 20;
  optional bytes datastore_transaction = 21;
  optional int64 dispatch_deadline_usec = 22;
}

message AddResponse {
  optional bytes chosen_task_name = 1;
}

message BulkAddRequest {
  repeated AddRequest add_request = 1;
}

message BulkAddResponse {
  repeated group TaskResult = 1 {
    optional int32 result = 2;
    optional bytes chosen_task_name = 3;
  }
}

message DeleteRequest {
  optional bytes queue_name = 1;
  repeated bytes task_name = 2;
  optional bytes app_id = 3;
}

message DeleteResponse {
  repeated int32 result = 3 [packed = false];
}

message QueueNameRequest {
  optional bytes app_id = 1;
  optional bytes queue_name = 2;
}

message Empty {
}

message PauseQueueRequest {
  optional bytes app_id = 1;
  optional bytes queue_name = 2;
  optional bool pause = 3;
}

message FetchQueuesRequest {
  optional bytes app_id = 1;
  optional int32 max_rows = 2;
}

message FetchQueuesResponse {
  repeated group Queue = 1 {
    optional bytes queue_name = 2;
    optional double bucket_refill_per_second = 3;
    optional double bucket_capacity = 4;
    optional string user_specified_rate = 5;
    optional bool paused = 6;
    optional RetryParameters retry_parameters = 7;
    optional int32 max_concurrent_requests = 8;
    optional int32 mode = 9;
    optional string creator_name = 12;
  }
}

message FetchQueueStatsRequest {
  optional bytes app_id = 1;
  repeated bytes queue_name = 2;
  optional int32 max_num_tasks = 3;
}

message ScannerQueueInfo {
  optional int64 executed_last_minute = 1;
  optional int64 executed_last_hour = 2;
  optional double sampling_duration_seconds = 3;
  optional int32 requests_in_flight = 4;
  optional double enforced_rate = 5;
}

message FetchQueueStatsResponse {
  repeated group QueueStats = 1 {
    optional int32 num_tasks = 2;
    optional int64 oldest_eta_usec = 3;
    optional ScannerQueueInfo scanner_info = 4;
  }
}

message QueryTasksRequest {
  optional bytes app_id = 1;
  optional bytes queue_name = 2;
  optional bytes start_task_name = 3;
  optional int64 start_eta_usec = 4;
  optional int32 max_rows = 5 [default = 1];
  optional bytes start_tag = 6;
}

message QueryTasksResponse {
  repeated group Task = 1 {
    optional bytes task_name = 2;
    optional int64 eta_usec = 3;
    optional bytes url = 4;
    optional int32 method = 5;
    optional int32 retry_count = 6;
    repeated group Header = 7 {
      optional bytes key = 8;
      optional bytes value = 9;
    }
    optional int32 body_size = 10;
    optional bytes body = 11;
    optional int64 creation_time_usec = 12;
    optional RetryParameters retry_parameters = 23;
    optional bytes tag = 25;
    optional int32 execution_count = 26;
    optional int64 dispatch_deadline_usec = 28;
  }
}

message FetchTaskRequest {
  optional bytes app_id = 1;
  optional bytes queue_name = 2;
  optional bytes task_name = 3;
}

message FetchTaskResponse {
  optional QueryTasksResponse task = 1;
}

message UpdateStorageLimitRequest {
  optional bytes app_id = 1;
  optional int64 limit = 2;
}

message QueryAndOwnTasksRequest {
  optional bytes queue_name = 1;
  optional double lease_seconds = 2;
  optional int64 max_tasks = 3;
  optional bool group_by_tag = 4;
  optional bytes tag = 5;
}

message QueryAndOwnTasksResponse {
  repeated group Task = 1 {
    optional bytes task_name = 2;
    optional int64 eta_usec = 3;
    optional int32 retry_count = 4;
    optional bytes body = 5;
    optional bytes tag = 6;
  }
}

message ModifyTaskLeaseRequest {
  optional bytes queue_name = 1;
  optional bytes task_name = 2;
  optional int64 eta_usec = 3;
  optional double lease_seconds = 4;
}

message ModifyTaskLeaseResponse {
  optional int64 updated_eta_usec = 1;
}
`;
