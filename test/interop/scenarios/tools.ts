// The tools both processes of the agent scenario declare (a resumed run needs the same toolkit).
import { createToolkit, defineTool, relayTool } from "relaytrace";
import type { Runtime, Toolkit, ToolExecutionInterceptOutcome } from "relaytrace";

export const INVOICE_TOOL = "send_invoice";

export async function scenarioToolkit(): Promise<Toolkit> {
  const checkStock = defineTool({
    name: "check_stock",
    description: "Units in stock for a product",
    inputSchema: { type: "object", properties: { sku: { type: "string" } }, required: ["sku"] },
    execute: ({ sku }) => JSON.stringify({ sku, units: 7 }),
  });
  const lookupOrder = defineTool({
    name: "lookup_order",
    description: "Fetch an order from the order database",
    inputSchema: { type: "object", properties: { order: { type: "string" } }, required: ["order"] },
    execute: () => {
      throw new Error("order database unavailable");
    },
  });
  const sendInvoice = relayTool(INVOICE_TOOL, "Send an invoice; the billing system does it", {
    type: "object",
    properties: { customer: { type: "string" }, amount: { type: "number" } },
    required: ["customer", "amount"],
  });
  return createToolkit({ builtins: false, tools: [checkStock, lookupOrder, sendInvoice] });
}

/** An execution intercept that follows `check_stock` with two pending marks and annotates its result. */
export function registerStockAudit(runtime: Runtime): () => boolean {
  return runtime.registerToolExecutionIntercept(
    "interop.stock-audit",
    10,
    async (args, next, info): Promise<ToolExecutionInterceptOutcome> => {
      const outcome = await next(args);
      if (info.tool !== "check_stock") return outcome;
      return {
        ...outcome,
        annotation: { source: "warehouse-7" },
        pendingMarks: [
          {
            name: "stock.audited",
            category: "custom",
            categoryProfile: { subtype: "warehouse.audit" },
            data: { sku: "sku-42", units: 7 },
            severity: "info",
          },
          { name: "stock.low", data: { threshold: 10 }, severity: "warn" },
        ],
      };
    },
  );
}
