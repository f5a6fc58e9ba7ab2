/**
 * A STAND-IN for n8n's Data tables in engine tests: n8n serves them from its own database through
 * its server's data-table module, which n8n-core's engine does not include. This keeps tables in
 * memory behind the same proxy interfaces (n8n-workflow's IDataTableProjectService), so n8n's real
 * Data table node (n8n-nodes-base) runs against it unchanged. Only what that node's operations
 * used here need: tables by name, columns, rows read with eq/neq filters, rows inserted. The real
 * database is tested end to end in n8n (e2e/).
 */
import type {
	DataTable,
	DataTableFilter,
	DataTableRow,
	DataTableRowReturn,
	IDataTableProjectAggregateService,
	IDataTableProjectService,
} from 'n8n-workflow';

interface Table extends DataTable {
	rows: DataTableRowReturn[];
}

export class DataTables {
	private readonly tables = new Map<string, Table>();
	private nextRowId = 1;

	/** What n8n-core's engine takes as `additionalData['data-table']`. */
	get module() {
		return {
			dataTableProxyProvider: {
				getDataTableAggregateProxy: async () => this.aggregate(),
				getDataTableProxy: async (_workflow: unknown, _node: unknown, id: string) => this.proxy(id),
			},
		};
	}

	/** Every row of a table, as stored. */
	rowsOf(name: string): DataTableRowReturn[] {
		return [...(this.byName(name)?.rows ?? [])];
	}

	/** Changes a stored row in place, as a person editing the table would. */
	edit(name: string, id: number, changes: DataTableRow): void {
		Object.assign(
			this.byName(name)!.rows.find((row) => row.id === id)!,
			changes,
		);
	}

	private byName(name: string): Table | undefined {
		return [...this.tables.values()].find((table) => table.name === name);
	}

	private aggregate(): IDataTableProjectAggregateService {
		return {
			getProjectId: () => 'project',
			createDataTable: async ({ name, columns }) => {
				const id = `table${this.tables.size + 1}`;
				const table: Table = {
					id,
					name,
					projectId: 'project',
					createdAt: new Date(),
					updatedAt: new Date(),
					columns: columns.map((column, index) => ({
						...column,
						id: `${id}-${index}`,
						index,
						dataTableId: id,
					})),
					rows: [],
				};
				this.tables.set(id, table);
				const { rows: _rows, ...described } = table;
				return described;
			},
			getManyAndCount: async ({ filter }) => {
				const name = typeof filter?.name === 'string' ? filter.name.toLowerCase() : undefined;
				const data = [...this.tables.values()]
					.filter((table) => name === undefined || table.name.toLowerCase() === name)
					.map(({ rows: _rows, ...table }) => table);
				return { count: data.length, data };
			},
			deleteDataTableAll: async () => true,
		};
	}

	private proxy(id: string): IDataTableProjectService {
		const table = this.tables.get(id);
		if (!table) throw new Error(`No data table ${id}`);
		const unsupported = async (): Promise<never> => {
			throw new Error('not used by these tests');
		};
		return {
			getColumns: async () => table.columns,
			getManyRowsAndCount: async ({ filter, skip = 0, take = Infinity }) => {
				const matching = table.rows.filter((row) => matches(row, filter));
				return {
					count: matching.length,
					data: matching.slice(skip, skip + take).map((row) => ({ ...row })),
				};
			},
			insertRows: async (rows, returnType) => {
				const inserted = rows.map((row) => {
					const now = new Date();
					const stored = { ...row, id: this.nextRowId++, createdAt: now, updatedAt: now };
					table.rows.push(stored);
					return { ...stored };
				});
				if (returnType === 'count')
					return { success: true, insertedRows: inserted.length } as never;
				if (returnType === 'id') return inserted.map(({ id: rowId }) => ({ id: rowId })) as never;
				return inserted as never;
			},
			updateDataTable: unsupported,
			deleteDataTable: unsupported,
			addColumn: unsupported,
			moveColumn: unsupported,
			deleteColumn: unsupported,
			updateRows: unsupported,
			upsertRow: unsupported,
			deleteRows: unsupported,
			clearRows: unsupported,
		};
	}
}

function matches(row: DataTableRowReturn, filter: DataTableFilter | undefined): boolean {
	if (!filter || filter.filters.length === 0) return true;
	const tests = filter.filters.map(({ columnName, condition, value }) => {
		if (condition === 'eq') return row[columnName] === value;
		if (condition === 'neq') return row[columnName] !== value;
		throw new Error(`The stand-in has no condition ${condition}`);
	});
	return filter.type === 'or' ? tests.some(Boolean) : tests.every(Boolean);
}
