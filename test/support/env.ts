// Every test process runs in test mode unless a test says otherwise.
process.env.NODE_ENV ??= 'test';
