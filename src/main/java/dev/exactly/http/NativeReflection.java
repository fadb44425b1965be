package dev.exactly.http;

import dev.exactly.consume.AckBatch;
import dev.exactly.consume.AckBatchResponse;
import dev.exactly.consume.AckCommand;
import dev.exactly.consume.AckResult;
import dev.exactly.consume.LeaseExtension;
import dev.exactly.consume.PopLease;
import dev.exactly.consume.PopRequest;
import dev.exactly.consume.PopResponse;
import dev.exactly.consume.PoppedMessage;
import dev.exactly.message.MessageView;
import dev.exactly.problem.FieldError;
import dev.exactly.problem.Problem;
import dev.exactly.push.PushRequest;
import dev.exactly.push.PushResponse;
import dev.exactly.push.PushResult;
import dev.exactly.queue.QueueListResponse;
import dev.exactly.queue.QueueOptionsInput;
import dev.exactly.queue.QueueStats;
import dev.exactly.queue.QueueView;
import dev.exactly.redrive.RedriveRequest;
import dev.exactly.redrive.RedriveResponse;
import dev.exactly.redrive.RedriveResult;
import dev.exactly.retention.MaintenanceReport;
import dev.exactly.schema.SchemaMigrator;
import dev.exactly.task.BatchResponse;
import dev.exactly.task.ClaimResponse;
import dev.exactly.task.EnqueueResult;
import dev.exactly.task.TaskListResponse;
import dev.exactly.task.TaskRequest;
import dev.exactly.task.TaskView;
import dev.exactly.task.WorkerRequest;
import dev.exactly.transaction.TransactionProblem;
import dev.exactly.transaction.TransactionRequest;
import dev.exactly.transaction.TransactionResponse;
import dev.exactly.webhook.WebhookReceipt;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * Registers the JSON types Jackson writes for reflection in a native image (GraalVM closed world,
 * the `native` Maven profile). Quarkus REST registers an endpoint's declared return type itself,
 * but not types behind a {@code Uni}, inside a {@code Response} entity or nested in records, so
 * every wire type (a record written as a response body, an error body or a part of one) is listed
 * here, and so is every request body Jackson binds. NativeReflectionTest fails when a record of a wire package is neither listed nor
 * named there as not a wire type. No effect on the JVM.
 */
@RegisterForReflection(targets = {
        PushResponse.class, PushResult.class,
        Problem.class, FieldError.class,
        QueueView.class, QueueView.Reset.class,
        QueueListResponse.class, QueueListResponse.Entry.class, QueueStats.class, QueueStats.Group.class,
        QueueStats.Duplicates.class,
        MessageView.class,
        SchemaMigrator.Outcome.class,
        PopResponse.class, PoppedMessage.class, PopLease.class, AckBatchResponse.class, AckResult.class,
        EnqueueResult.class, BatchResponse.class, ClaimResponse.class, TaskView.class,
        TaskListResponse.class,
        TransactionResponse.class, TransactionResponse.OperationResult.class, TransactionProblem.class,
        WebhookReceipt.class,
        MaintenanceReport.class,
        RedriveResponse.class, RedriveResult.class,
        // request bodies, which Jackson reads
        PushRequest.class, PushRequest.Item.class, RawJson.class, NoFields.class,
        PopRequest.class, LeaseExtension.class, AckCommand.class, AckBatch.class,
        TransactionRequest.class, TransactionRequest.Operation.class,
        QueueOptionsInput.class, QueueOptionsInput.Configure.class, QueueOptionsInput.Patch.class,
        RedriveRequest.class,
        TaskRequest.class, TaskRequest.Batch.class, WorkerRequest.Claim.class, WorkerRequest.Complete.class,
        WorkerRequest.Fail.class, WorkerRequest.Extend.class,
})
public final class NativeReflection {

    private NativeReflection() {
    }
}
