import type { FieldSpec, FieldType } from './spec';

// How each field type is spelled in every file the generator writes: JSON Schema, TypeScript, the
// Sequelize model and migration, mongoose, and a sample value for the tests.

interface TypeSpelling {
  /** TypeBox, in a request body. */
  schema: string;
  /** TypeBox, in the answered record (datetimes are Dates there, strings in JSON). */
  recordSchema?: string;
  /** In the record the store returns. */
  recordType: string;
  /** In a request body (datetimes arrive as ISO 8601 strings). */
  bodyType: string;
  model: string;
  column: string;
  mongo: string;
  /** A valid value in a request body, and another one. */
  samples: [string, string];
  /** A value of the wrong type in a request body. */
  wrong: string;
}

const SPELLING: Record<FieldType, TypeSpelling> = {
  string: {
    schema: 'Type.String({ minLength: 1, maxLength: 200 })',
    recordType: 'string',
    bodyType: 'string',
    model: 'DataTypes.STRING(200)',
    column: 'DataTypes.STRING(200)',
    mongo: 'String',
    samples: ["'first'", "'second'"],
    wrong: '42',
  },
  text: {
    schema: 'Type.String({ maxLength: 10_000 })',
    recordType: 'string',
    bodyType: 'string',
    model: 'DataTypes.TEXT',
    column: 'DataTypes.TEXT',
    mongo: 'String',
    samples: ["'Some longer text.'", "'Other text.'"],
    wrong: 'true',
  },
  integer: {
    schema: 'Type.Integer({ minimum: -2_147_483_648, maximum: 2_147_483_647 })',
    recordType: 'number',
    bodyType: 'number',
    model: 'DataTypes.INTEGER',
    column: 'DataTypes.INTEGER',
    mongo: 'Number',
    samples: ['7', '-3'],
    wrong: '1.5',
  },
  number: {
    schema: 'Type.Number()',
    recordType: 'number',
    bodyType: 'number',
    model: 'DataTypes.DOUBLE',
    column: 'DataTypes.DOUBLE',
    mongo: 'Number',
    samples: ['2.5', '-0.125'],
    wrong: "'2.5'",
  },
  boolean: {
    schema: 'Type.Boolean()',
    recordType: 'boolean',
    bodyType: 'boolean',
    model: 'DataTypes.BOOLEAN',
    column: 'DataTypes.BOOLEAN',
    mongo: 'Boolean',
    samples: ['true', 'false'],
    wrong: "'yes'",
  },
  datetime: {
    schema: "Type.String({ format: 'date-time', maxLength: 40 })",
    recordSchema: 'timestamp',
    recordType: 'Date',
    bodyType: 'string',
    model: 'DataTypes.DATE(3)',
    column: 'millisecondTimestamp(queryInterface)',
    mongo: 'Date',
    samples: ["'2030-01-02T03:04:05.678Z'", "'2031-06-07T08:09:10.111Z'"],
    wrong: "'next tuesday'",
  },
};

export function spelling(field: FieldSpec): TypeSpelling {
  return SPELLING[field.type];
}
