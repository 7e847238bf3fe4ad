import Foundation

/// A batch of documents being encoded, identified and signed on the cores ahead of its commit: made by
/// ``Ledger/prepare(batch:after:)``, journaled, posted and committed by
/// ``Ledger/process(_:code:requests:expectedDocumentId:forms:)``.
///
/// Group commit of batch after batch prepares the next batch before processing the current one, so the cores sign
/// it while the current one is journaled and committed (the commit waits for its fsync and signs nothing). Nothing
/// of a prepared batch reaches the database before it is processed, and its outcomes are reported only after its
/// own commit, as for ``Ledger/process(batch:code:requests:expectedDocumentId:forms:)``.
public final class PreparedBatch: @unchecked Sendable {
    /// The documents, in the order they will be journaled.
    public let documents: [Document]
    /// Whose key signs them (and whose code authorises them).
    let identity: SigningIdentity
    let signer: BatchSigner

    init(documents: [Document], identity: SigningIdentity, signer: BatchSigner) {
        self.documents = documents
        self.identity = identity
        self.signer = signer
    }

    /// Waits until every document is encoded, identified and signed (or has failed): what is left for
    /// ``Ledger/process(_:code:requests:expectedDocumentId:forms:)`` is the serial part, journal, posting and commit.
    public func waitUntilSigned() {
        _ = signer.firstFailure()
    }

    deinit {
        // A batch dropped unprocessed stops its workers (signing one already finished does nothing).
        signer.finish()
    }
}
