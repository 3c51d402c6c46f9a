"""A real S3-compatible server on loopback for the tests: moto's standalone server (it speaks
the S3 HTTP API), started and stopped by the suite, with IAM authentication on, so that bad
credentials are refused as a real store refuses them."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: moto lets this many requests through unauthenticated: the IAM set-up below.
_BOOTSTRAP_REQUESTS = 3
_ALLOW_ALL = json.dumps({"Version": "2012-10-17",
                         "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]})


def free_port() -> int:
    """A TCP port nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class S3Server:
    """A running server: its endpoint and the environment a client needs to use it."""

    endpoint: str
    process: subprocess.Popen[bytes]
    env: dict[str, str] = field(default_factory=dict)

    def client_env(self) -> dict[str, str]:
        """``os.environ`` plus what points boto/botocore at this server (AWS_ENDPOINT_URL
        alone selects the endpoint; the keys are a real IAM user's)."""
        return os.environ | self.env

    def client(self) -> Any:
        """A boto3 S3 client of this server with its IAM user's keys (whatever the
        environment of the test says)."""
        import boto3

        return boto3.client("s3", endpoint_url=self.endpoint, region_name="us-east-1",
                            aws_access_key_id=self.env["AWS_ACCESS_KEY_ID"],
                            aws_secret_access_key=self.env["AWS_SECRET_ACCESS_KEY"])

    def make_bucket(self, name: str) -> str:
        """Create bucket ``name``; returns ``s3://name``."""
        self.client().create_bucket(Bucket=name)
        return f"s3://{name}"

    def keys(self, url: str) -> list[str]:
        """Every key under the prefix ``url`` (``s3://bucket/prefix``), as URLs, sorted."""
        bucket, _, prefix = url.removeprefix("s3://").partition("/")
        pages = self.client().get_paginator("list_objects_v2").paginate(Bucket=bucket,
                                                                         Prefix=prefix)
        return sorted(f"s3://{bucket}/{item['Key']}" for page in pages
                      for item in page.get("Contents", []))

    def read(self, url: str) -> bytes:
        """The content of the object ``url``."""
        bucket, _, key = url.removeprefix("s3://").partition("/")
        return bytes(self.client().get_object(Bucket=bucket, Key=key)["Body"].read())

    def upload_tree(self, folder: Path, url: str) -> list[str]:
        """Upload every file below ``folder`` under the prefix ``url``; returns their URLs."""

        bucket, _, prefix = url.removeprefix("s3://").partition("/")
        client = self.client()
        urls = []
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            key = "/".join(filter(None, [prefix.strip("/"), path.relative_to(folder).as_posix()]))
            client.upload_file(str(path), bucket, key)
            urls.append(f"s3://{bucket}/{key}")
        return urls

    def stop(self) -> None:
        """Stop the server."""
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def start_s3_server() -> S3Server:
    """Start moto's server on a free loopback port and create one IAM user with a key."""
    import boto3

    port = free_port()
    endpoint = f"http://127.0.0.1:{port}"
    binary = Path(sys.executable).with_name("moto_server")
    env = os.environ | {"INITIAL_NO_AUTH_ACTION_COUNT": str(_BOOTSTRAP_REQUESTS)}
    process = subprocess.Popen([str(binary), "-H", "127.0.0.1", "-p", str(port)], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(f"{endpoint}/moto-api/", timeout=2).close()
            break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise RuntimeError(f"moto_server did not start on {endpoint}") from None
            time.sleep(0.1)
    iam = boto3.client("iam", endpoint_url=endpoint, region_name="us-east-1",
                       aws_access_key_id="bootstrap", aws_secret_access_key="bootstrap")
    iam.create_user(UserName="redecode")
    iam.put_user_policy(UserName="redecode", PolicyName="all", PolicyDocument=_ALLOW_ALL)
    key = iam.create_access_key(UserName="redecode")["AccessKey"]
    return S3Server(endpoint, process, {
        "AWS_ENDPOINT_URL": endpoint,
        "AWS_ACCESS_KEY_ID": key["AccessKeyId"],
        "AWS_SECRET_ACCESS_KEY": key["SecretAccessKey"],
        "AWS_DEFAULT_REGION": "us-east-1",
    })
