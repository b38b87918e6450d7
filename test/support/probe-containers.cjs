// Run by test/support/engines.ts in a child process (jest collects suites synchronously, these checks are
// asynchronous). Prints one JSON line: does a container runtime answer (testcontainers' own detection),
// and for each image named on the command line, can a container be started from it — present locally,
// or its registry answers for its manifest (nothing is downloaded here; the test run pulls it).
'use strict';
const { getContainerRuntimeClient, ImageName } = require('testcontainers');
const Docker = require('dockerode');

function withDeadline(promise, ms, what) {
  let timer;
  const deadline = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

function firstLine(error) {
  return String((error && error.message) || error).split('\n')[0].slice(0, 200);
}

async function main() {
  const result = { runtime: false, reason: '', images: {} };
  let client;
  try {
    client = await withDeadline(getContainerRuntimeClient(), 15_000, 'the container runtime');
    result.runtime = true;
  } catch (error) {
    result.reason = `no container runtime answers (${firstLine(error)})`;
    return result;
  }
  const docker = new Docker();
  for (const image of process.argv.slice(2)) {
    try {
      if (await client.image.exists(ImageName.fromString(image))) {
        result.images[image] = { available: true };
        continue;
      }
      await withDeadline(docker.getImage(image).distribution(), 15_000, 'the image registry');
      result.images[image] = { available: true };
    } catch (error) {
      result.images[image] = {
        available: false,
        reason: `image ${image} is not present locally and its registry cannot be reached (${firstLine(error)})`,
      };
    }
  }
  return result;
}

main().then(
  (result) => {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    process.exit(0);
  },
  (error) => {
    process.stdout.write(`${JSON.stringify({ runtime: false, reason: firstLine(error), images: {} })}\n`);
    process.exit(0);
  },
);
