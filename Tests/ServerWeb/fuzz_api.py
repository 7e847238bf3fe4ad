"""The OpenAPI document against the server: schemathesis (property-based) generates requests for every operation
of /api/v1/openapi.json — as served — and checks that no answer is a 5xx and every answer (status, content type,
body) matches the document. Logged in as a customer, so the operations behind the login are reached."""
import os
import subprocess
import sys

from served import Served


def main():
    served = Served()
    try:
        token = served.token()
        command = [
            "schemathesis", "run", served.base + "/api/v1/openapi.json",
            "--checks", "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance",
            "--header", f"Authorization: Bearer {token}",
            # The event stream never ends, and logging out would end the fuzzer's own session.
            "--exclude-operation-id", "events", "--exclude-operation-id", "logout",
            "--max-examples", os.environ.get("FUZZ_EXAMPLES", "40"), "--seed", "16",
            "--phases", "examples,coverage,fuzzing", "--request-timeout", "30", "--workers", "1",
            "--generation-database", "none", "--warnings", "off",
        ]
        status = subprocess.run(command).returncode
    finally:
        log = served.stop()
    requests = sum(1 for line in log.splitlines() if " HTTP/1.1\" " in line)
    print(f"api fuzzer: {requests} requests answered; schemathesis exit {status}")
    sys.exit(status)


if __name__ == "__main__":
    main()
