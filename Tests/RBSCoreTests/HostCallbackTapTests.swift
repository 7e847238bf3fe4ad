import Foundation
import Testing
@testable import RBSCore

/// What `plugin check` sees of a plugin's calls into the host (``HostCallbackTap``): the calls of the recording
/// thread while it records, none before or after, and none of another thread.
@Suite("Host callback tap")
struct HostCallbackTapTests {
    @Test("only the calls made on the recording thread during the recording are kept, in order")
    func recordsThisThreadOnly() throws {
        HostCallbackTap.note("before()")
        let seen = HostCallbackTap.record { () -> Int in
            HostCallbackTap.note("first()")
            // Another thread's call, made while this one records (a plugin's own thread, say), is not this call's.
            let done = DispatchSemaphore(value: 0)
            Thread {
                HostCallbackTap.note("other_thread()")
                done.signal()
            }.start()
            done.wait()
            HostCallbackTap.note("second()")
            return 42
        }
        HostCallbackTap.note("after()")
        #expect(seen.result == 42)
        #expect(seen.calls == ["first()", "second()"])
        #expect(HostCallbackTap.record { 0 }.calls.isEmpty)
    }

    @Test("a C argument as the plugin passed it: quoted and cut, NULL named")
    func arguments() {
        #expect(HostCallbackTap.quoted(nil) == "NULL")
        #expect(HostCallbackTap.atom(nil) == "NULL")
        "fee".withCString { #expect(HostCallbackTap.atom($0) == "'fee'") }
        String(repeating: "x", count: 100).withCString {
            #expect(HostCallbackTap.quoted($0) == "\"" + String(repeating: "x", count: 60) + "…\"")
        }
    }
}
