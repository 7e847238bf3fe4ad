import ArgumentParser
import Dispatch
import Foundation
import RBSCore
import RBSLedger
import RBSServer

/// `rbs-host serve`: the plugin operations over HTTP for customers' web and mobile clients (see RBSServer).
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Serve the plugin operations over HTTP: /api/v1 (JSON), the web client at /, /health, /metrics.",
        discussion: """
            Customers log in with the name and password of `rbs-host customers add`. Plugins run in worker processes
            (--isolation plugin) unless --isolation none or RBS_ISOLATION=none says otherwise. One request log line per request goes
            to standard output (Common Log Format, the duration in seconds appended). SIGTERM or SIGINT shuts down
            gracefully: clients are told, signings in progress finish, open runs are closed.
            """)

    @OptionGroup var global: GlobalOptions
    @Option(help: ArgumentHelp("Where to listen: HOST:PORT (:PORT for every address).", valueName: "host:port"))
    var listen = "127.0.0.1:8080"
    @Option(help: ArgumentHelp("The origin passkeys are bound to, as the browser shows it (default: http://localhost:PORT of --listen); state-changing requests from it are accepted too (behind a proxy).",
                               valueName: "url"))
    var origin: String?
    @Option(name: .customLong("tls-cert"), help: ArgumentHelp("Serve https with this PEM certificate chain (the server's certificate first); needs --tls-key.",
                                                               valueName: "file"))
    var tlsCert: String?
    @Option(name: .customLong("tls-key"), help: ArgumentHelp("The PEM private key of --tls-cert (unencrypted).", valueName: "file"))
    var tlsKey: String?
    @Option(name: .customLong("header-timeout"), help: ArgumentHelp("Seconds a new connection has to send its first request's head (line and headers).",
                                                                     valueName: "seconds"))
    var headerTimeout: Double = ConnectionTimeouts().header
    @Option(name: .customLong("body-timeout"), help: ArgumentHelp("Seconds a request has to send its body after its head.", valueName: "seconds"))
    var bodyTimeout: Double = ConnectionTimeouts().body
    @Option(name: .customLong("idle-timeout"), help: ArgumentHelp("Seconds a kept-alive connection may wait for its next request after an answer.",
                                                                   valueName: "seconds"))
    var idleTimeout: Double = ConnectionTimeouts().idle
    @Flag(inversion: .prefixedNo, help: "Reload changed plugins as they appear in the folder (default: on with --dev).")
    var watch: Bool?
    @Option(help: ArgumentHelp("Runs (open forms) one customer may hold at once; more are refused until one is cancelled or expires.",
                               valueName: "n"))
    var runsPerCustomer = OnlineBank.Limits().runsPerCustomer
    @Option(help: ArgumentHelp("Minutes a run stays open unused before it expires and its plugin instance is closed.",
                               valueName: "minutes"))
    var runIdleMinutes = Int(OnlineBank.Limits().runIdle / 60)
    @Flag(help: ArgumentHelp("Add GET /hello, a constant answer (the ceiling of the load benchmark).", visibility: .hidden))
    var helloRoute = false

    func run() throws {
        let address: (host: String, port: Int)
        do { address = try Server.parse(listen: listen) } catch {
            Terminal.error(error.description)
            throw ExitCode.validationFailure
        }
        guard runsPerCustomer >= 1, runIdleMinutes >= 1 else {
            Terminal.error("--runs-per-customer and --run-idle-minutes take a whole number of at least 1")
            throw ExitCode.validationFailure
        }
        var limits = OnlineBank.Limits()
        limits.runsPerCustomer = runsPerCustomer
        limits.runIdle = TimeInterval(runIdleMinutes) * 60
        var party: RelyingParty?
        if let origin {
            do { party = try RelyingParty(origin: origin) } catch {
                Terminal.error("--origin: \(error.description)")
                throw ExitCode.validationFailure
            }
        }
        let http = try httpOptions()
        // A server runs many customers' modules: each plugin in its own worker unless told otherwise.
        let runtime = try global.makeRuntime(runs: true)
        Listing.printFailures(runtime.registry, language: .en)  // a server's log, read by its operators in one language
        runtime.releaseTrack?.follow(every: global.releaseSyncInterval)
        let server: Server
        do {
            let clock = HostClock.current
            server = try Server(runtime: runtime, ledger: try runtime.ledger(), limits: limits, origin: party, http: http, clock: { clock.now }, log: { line in
                FileHandle.standardOutput.write(Data((line + "\n").utf8))
            }, note: { line in
                FileHandle.standardError.write(Data((line + "\n").utf8))
            })
        } catch {
            Terminal.error("\(error)")
            throw ExitCode.failure
        }
        var watcher: PluginWatcher?
        if watch ?? global.developmentMode {
            do {
                watcher = try runtime.watch { reports in
                    for report in reports { FileHandle.standardError.write(Data((report.description + "\n").utf8)) }
                    server.bank.announce(reports)
                }
            } catch {
                Terminal.error(error.description)
            }
        }
        defer { watcher?.stop() }
        let outcome = ServeOutcome()
        let finished = DispatchSemaphore(value: 0)
        let listen = self.listen
        let hello = helloRoute
        let scheme = http.tls == nil ? "http" : "https"
        Task {
            do {
                try await server.run(host: address.host, port: address.port, hello: hello) { port in
                    let origin = server.bank.relyingParty?.origin ?? "none"
                    FileHandle.standardError.write(Data("rbs-host serve: listening on \(scheme)://\(address.host):\(port) (\(listen)); passkeys for \(origin)\n".utf8))
                }
            } catch {
                outcome.fail("\(error)")
            }
            finished.signal()
        }
        finished.wait()
        if let failure = outcome.failure {
            Terminal.error("serve: \(failure)")
            throw ExitCode.failure
        }
        FileHandle.standardError.write(Data("rbs-host serve: stopped\n".utf8))
    }
}

extension ServeCommand {
    /// TLS (both files or neither, each checked now) and the slow-client deadlines (each a positive number of seconds).
    func httpOptions() throws -> HTTPOptions {
        var http = HTTPOptions()
        for (flag, seconds) in [("--header-timeout", headerTimeout), ("--body-timeout", bodyTimeout), ("--idle-timeout", idleTimeout)]
        where !(seconds > 0 && seconds <= 86_400) {
            Terminal.error("\(flag) \(seconds): give a number of seconds above 0 and at most 86400")
            throw ExitCode.validationFailure
        }
        http.timeouts = ConnectionTimeouts(header: headerTimeout, body: bodyTimeout, idle: idleTimeout)
        switch (tlsCert, tlsKey) {
        case (nil, nil): break
        case (let certificate?, let key?):
            do { http.tls = try ServerTLS.load(certificate: certificate, key: key) } catch {
                Terminal.error(error.description)
                throw ExitCode.validationFailure
            }
        case (nil, _?):
            Terminal.error("--tls-key needs --tls-cert FILE (the certificate of the key)")
            throw ExitCode.validationFailure
        case (_?, nil):
            Terminal.error("--tls-cert needs --tls-key FILE (the certificate's private key)")
            throw ExitCode.validationFailure
        }
        return http
    }
}

/// How the server task ended, read by the waiting main thread.
private final class ServeOutcome: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: String?
    var failure: String? { lock.withLock { stored } }
    func fail(_ message: String) { lock.withLock { stored = message } }
}
