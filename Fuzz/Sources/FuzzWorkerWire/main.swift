import Foundation
import FuzzSupport
import RBSLedger
@testable import RBSCore

/// The worker wire as the host reads it: a sandboxed worker runs the plugin, so every byte it sends is hostile. The
/// bytes go through a real socket into the host's frame reader (`WireReceiver`: length, kind, payload); each frame is
/// then read as the host reads that kind — the first frame's manifest and services, callbacks answered by a
/// runtime's `serve` (with accounts, a bank directory and a clock), and replies read as values, expressions, built
/// documents and commit replies. A malformed frame is a `WireError` (the host ends that worker); nothing traps.
private let runtime: WorkerRuntime = {
    let locator = ServiceLocator()
    locator.register(StaticAccounts([
        Account(number: "40817810099910004312", currency: "RUB", balance: Decimal(string: "15000.00")!,
                owner: "Иван Петров", title: "Текущий", blocked: false),
    ]) as any AccountsService)
    locator.register(BankDirectory.bundled())
    let settings = IsolationSettings(mode: .plugin, workerExecutable: "/nonexistent/rbs-host")
    return WorkerRuntime(pluginID: "ru.example.fuzz", image: "/nonexistent/fuzz.so", settings: settings, locator: locator)
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWorkerWire(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    var fds: [Int32] = [-1, -1]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { return 0 }
    defer { close(fds[0]) }
    // The fuzzer keeps inputs far below the socket's buffer (-max_len in the Makefile), so one write never blocks.
    var written = 0
    while written < bytes.count {
        let count = bytes[written...].withUnsafeBytes { send(fds[1], $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if count <= 0 { break }
        written += count
    }
    close(fds[1])
    let receiver = WireReceiver(fd: fds[0])
    var first = true
    while case .frame(let frame) = receiver.next() {
        var copy = frame
        if first, frame.kind == .ready {
            _ = try? WorkerRuntime.readReady(&copy)
        } else if frame.kind == .reply {
            _ = try? copy.expression()
            copy = frame
            _ = try? copy.value()
            copy = frame
            _ = try? WorkerModule.readBuiltDocument(&copy)
            copy = frame
            _ = try? WorkerModule.readCommitReply(&copy, calls: 2)
        } else {
            _ = try? runtime.serve(&copy)
        }
        first = false
    }
    return 0
}

runFuzzer(fuzzWorkerWire)
