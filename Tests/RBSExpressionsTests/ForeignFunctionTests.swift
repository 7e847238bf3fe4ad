import Foundation
import Glibc
import Testing
@testable import RBSExpressions

/// A shared library of small C functions, compiled once per test run with the system C compiler.
enum TestPlugin {
    static let source = """
    #include <stdbool.h>
    #include <stdint.h>
    #include <stdio.h>
    #include <string.h>
    int64_t add(int64_t a, int64_t b) { return a + b; }
    double half(double x) { return x / 2; }
    bool is_even(int64_t x) { return x % 2 == 0; }
    bool flip(bool b) { return !b; }
    int64_t length(const char *s) { return (int64_t)strlen(s); }
    const char *greet(const char *s) { static char buf[64]; snprintf(buf, sizeof buf, "hi %s", s); return buf; }
    const char *nothing(void) { return NULL; }
    bool is_answer(void *instance) { return *(int64_t *)instance == 42; }
    int64_t bump(void *instance, int64_t step) { int64_t *c = instance; *c += step; return *c; }
    bool isDestInnCorrect(void) { return false; }
    """

    /// The dlopen handle, or an error text when the compiler or loader failed.
    /// Kept as the address's bit pattern so that the cached result is Sendable.
    static let handle: Result<UInt, TestPluginError> = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rbs-ffi-\(getpid())")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let c = dir.appendingPathComponent("plugin.c"), so = dir.appendingPathComponent("plugin.so")
        do {
            try source.write(to: c, atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["cc", "-shared", "-fPIC", "-O2", "-o", so.path, c.path]
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { return .failure(TestPluginError(text: "cc failed")) }
        } catch {
            return .failure(TestPluginError(text: "\(error)"))
        }
        guard let handle = dlopen(so.path, RTLD_NOW) else {
            return .failure(TestPluginError(text: String(cString: dlerror())))
        }
        return .success(UInt(bitPattern: handle))
    }()

    static func symbol(_ name: String) throws -> UnsafeRawPointer {
        let handle = UnsafeMutableRawPointer(bitPattern: try handle.get())
        return try #require(UnsafeRawPointer(dlsym(handle, name)), "dlsym \(name)")
    }

    static func function(_ name: String, _ signature: String, instance: Bool = false) throws -> ForeignFunction {
        try ForeignFunction(name: name, pointer: symbol(name), signature: signature, isInstanceBound: instance)
    }
}

struct TestPluginError: Error, Sendable {
    var text: String
}

@Suite("FunctionSignature")
struct FunctionSignatureTests {
    @Test func parsesResultAndParameters() throws {
        #expect(try FunctionSignature.parse("bool()") == FunctionSignature(result: .bool, parameters: []))
        #expect(try FunctionSignature.parse(" int64 ( string ,int64 ) ")
                == FunctionSignature(result: .int64, parameters: [.string, .int64]))
        #expect(try FunctionSignature.parse("double(double)").description == "double(double)")
    }

    @Test func malformedSignaturesNameTheTextAndColumn() {
        #expect(throws: FFIError.malformedSignature(text: "int(int64)", column: 1, reason: "unknown type 'int' for the result type")) {
            try FunctionSignature.parse("int(int64)")
        }
        #expect(throws: FFIError.malformedSignature(text: "bool", column: 5, reason: "expected '(' after the result type")) {
            try FunctionSignature.parse("bool")
        }
        #expect(throws: FFIError.malformedSignature(text: "bool(int64,)", column: 12, reason: "expected parameter 2")) {
            try FunctionSignature.parse("bool(int64,)")
        }
        #expect(throws: FFIError.malformedSignature(text: "bool(int64", column: 11, reason: "expected ',' or ')'")) {
            try FunctionSignature.parse("bool(int64")
        }
        #expect(throws: FFIError.malformedSignature(text: "bool() x", column: 8, reason: "unexpected text after ')'")) {
            try FunctionSignature.parse("bool() x")
        }
        let text = (try? FunctionSignature.parse("bool(float)")).map { _ in "" }
            ?? "\((FFIError.malformedSignature(text: "bool(float)", column: 6, reason: "unknown type 'float' for parameter 1")))"
        #expect(text.contains("bool(float)") && text.contains("column 6"))
    }
}

@Suite("ForeignFunction")
struct ForeignFunctionTests {
    @Test func passesAndReturnsInt64() throws {
        let add = try TestPlugin.function("add", "int64(int64, int64)")
        #expect(add.call(instance: nil, arguments: [.int(40), .int(2)]) == .int(42))
        #expect(add.call(instance: nil, arguments: [.int(.max), .int(0)]) == .int(.max))
        #expect(add.call(instance: nil, arguments: [.int(-5), .int(2)]) == .int(-3))
    }

    @Test func doubleParametersAcceptIntAndDecimal() throws {
        let half = try TestPlugin.function("half", "double(double)")
        #expect(half.call(instance: nil, arguments: [.int(3)]) == .decimal(Decimal(string: "1.5")!))
        #expect(half.call(instance: nil, arguments: [.decimal(Decimal(string: "0.5")!)]) == .decimal(Decimal(string: "0.25")!))
    }

    @Test func boolsCrossAsCBool() throws {
        let isEven = try TestPlugin.function("is_even", "bool(int64)")
        #expect(isEven.call(instance: nil, arguments: [.int(4)]) == .bool(true))
        #expect(isEven.call(instance: nil, arguments: [.int(5)]) == .bool(false))
        let flip = try TestPlugin.function("flip", "bool(bool)")
        #expect(flip.call(instance: nil, arguments: [.bool(true)]) == .bool(false))
        #expect(flip.call(instance: nil, arguments: [.bool(false)]) == .bool(true))
    }

    @Test func stringsArePassedNulTerminatedAndResultsCopied() throws {
        let length = try TestPlugin.function("length", "int64(string)")
        #expect(length.call(instance: nil, arguments: [.string("привет")]) == .int(12))
        #expect(length.call(instance: nil, arguments: [.null]) == .int(0), "a null string is passed as \"\"")
        let greet = try TestPlugin.function("greet", "string(string)")
        let first = greet.call(instance: nil, arguments: [.string("Ann")])
        _ = greet.call(instance: nil, arguments: [.string("Bob")])
        #expect(first == .string("hi Ann"), "the result was copied before the plugin reused its buffer")
        let nothing = try TestPlugin.function("nothing", "string()")
        #expect(nothing.call(instance: nil, arguments: []) == .null)
    }

    @Test func instanceBoundFunctionsGetTheInstanceFirst() throws {
        let bump = try TestPlugin.function("bump", "int64(int64)", instance: true)
        var counter: Int64 = 10
        let result = withUnsafeMutablePointer(to: &counter) { bump.call(instance: UnsafeMutableRawPointer($0), arguments: [.int(5)]) }
        #expect(result == .int(15))
        #expect(counter == 15)
        #expect(bump.call(instance: nil, arguments: [.int(5)]) == .null, "never called without its instance")
    }

    @Test func mismatchedArgumentsGiveNullWithoutCalling() throws {
        let add = try TestPlugin.function("add", "int64(int64, int64)")
        #expect(add.call(instance: nil, arguments: [.int(1)]) == .null)
        #expect(add.call(instance: nil, arguments: [.int(1), .null]) == .null)
        #expect(add.call(instance: nil, arguments: [.int(1), .string("2")]) == .null)
    }

    @Test func worksWithSwiftConventionCClosures() throws {
        let triple: @convention(c) (Int64) -> Int64 = { $0 * 3 }
        let f = try ForeignFunction(name: "triple", pointer: unsafeBitCast(triple, to: UnsafeRawPointer.self),
                                    signature: "int64(int64)")
        #expect(f.call(instance: nil, arguments: [.int(7)]) == .int(21))
        let both: @convention(c) (Bool, Double) -> Bool = { $0 && $1 > 1 }
        let g = try ForeignFunction(name: "both", pointer: unsafeBitCast(both, to: UnsafeRawPointer.self),
                                    signature: "bool(bool, double)")
        #expect(g.call(instance: nil, arguments: [.bool(true), .decimal(2)]) == .bool(true))
        #expect(g.call(instance: nil, arguments: [.bool(false), .decimal(2)]) == .bool(false))
    }

    @Test func badNamesAreRefused() {
        let f: @convention(c) () -> Bool = { true }
        #expect(throws: FFIError.badName("1x")) {
            try ForeignFunction(name: "1x", pointer: unsafeBitCast(f, to: UnsafeRawPointer.self), signature: "bool()")
        }
    }

    @Test func expressionsCallPluginFunctionsIncludingBareZeroArgumentOnes() throws {
        var scope = ExpressionScope(fields: [(name: "n", type: .int), (name: "s", type: .string)])
        scope.declareFunction(try TestPlugin.function("isDestInnCorrect", "bool()"))
        scope.declareFunction(try TestPlugin.function("add", "int64(int64, int64)"))
        scope.declareFunction(try TestPlugin.function("length", "int64(string)"))
        scope.declareFunction(try TestPlugin.function("is_answer", "bool()", instance: true))
        let seed = try CompiledExpression.compile("isDestInnCorrect == NO", in: scope)
        #expect(seed.test([]))
        #expect(!seed.isVolatile)
        let sum = try CompiledExpression.compile("add($n, 2) == 5 AND length(s) == 3", in: scope)
        #expect(sum.test([.int(3), .string("abc")]))
        #expect(sum.reads == [0, 1])
        let answer = try CompiledExpression.compile("is_answer()", in: scope)
        #expect(answer.isVolatile)
        var value: Int64 = 42
        #expect(withUnsafeMutablePointer(to: &value) { answer.test([], instance: UnsafeMutableRawPointer($0)) })
        #expect(!answer.test([]))
        #expect(throws: ExpressionError.typeMismatch(column: 5, message: "argument 1 of add() must be int, not string")) {
            try CompiledExpression.compile("add('x', 1) == 1", in: scope)
        }
    }
}
